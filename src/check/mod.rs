//! `graphbreak check`: compile each shipped config for real, in its own subprocess, and report.
//! (Owned by the check work stream; see issue 3.)

use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Targets: `file.py::factory`, a file (all `case_*` factories), or none (pyproject cases).
    pub targets: Vec<String>,
}

pub fn run(_args: CheckArgs) -> ExitCode {
    eprintln!("graphbreak check: not implemented yet");
    ExitCode::from(2)
}
