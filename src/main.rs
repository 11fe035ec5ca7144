//! graphbreak: find what `torch.compile` will break, recompile or stall — statically (`scan`) and by
//! compiling the project's real configs (`check`).

mod check;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "graphbreak", version, about = "What torch.compile will break, recompile or stall in your code")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Statically scan Python source for torch.compile hazards (never imports or runs it).
    Scan,
    /// Compile each case for real in a subprocess and report breaks, recompiles, timings and parity.
    Check(check::CheckArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Scan => ExitCode::SUCCESS,
        Command::Check(args) => check::run(args),
    }
}
