//! graphbreak: find what `torch.compile` will break, recompile or stall — statically (`scan`) and by
//! compiling the project's real configs (`check`).

mod allocator;
mod cache;
mod check;
mod config;
mod diagnostics;
mod fix;
mod init;
mod output;
mod rules;
mod scan;
mod scan_baseline;
mod semantic;
mod source;
mod torch_floor;

use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// mimalloc instead of the system allocator: a scan allocates and frees small AST nodes, model
/// records and strings on every worker thread, and glibc's malloc/free took ~20% of a large
/// scan's CPU (its arenas consolidate on free); ruff also replaces the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
#[command(
    name = "graphbreak",
    version,
    about = "What torch.compile will break, recompile or stall in your code — and proof from real compiles"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Statically scan Python source for torch.compile hazards (never imports or runs it).
    Scan(ScanArgs),
    /// Compile each case for real in a subprocess and report breaks, recompiles, timings and parity.
    Check(check::CheckArgs),
    /// Write a starter `[tool.graphbreak]` (torch floor and roots from the project) and a
    /// `compile_cases.py` template for `check`; never overwrites existing configuration.
    Init(init::InitArgs),
    /// Work with `check` reports.
    #[command(subcommand)]
    Report(ReportCommand),
    /// List (with sizes) or clean what `check` caches: `--torch` venvs, compile caches, harness
    /// copies, probes, and the project's `.graphbreak/cache`.
    #[command(subcommand)]
    Cache(cache::CacheCommand),
    /// List every rule: code, name, family, fix, torch versions, summary.
    Rules,
    /// Show the documentation of one rule.
    Rule {
        /// Rule code, e.g. CR001.
        code: String,
    },
    /// Recompute the cross-check of a check report (JSON or JSONL) with this build's rules; Dynamo's facts
    /// stay as recorded.
    #[command(hide = true)]
    Recheck {
        report: PathBuf,
        #[arg(long)]
        output: PathBuf,
    },
    /// Write `rules/<CODE>.md` and `rules/README.md` from the rule declarations.
    #[command(hide = true)]
    GenerateDocs {
        #[arg(default_value = "rules")]
        dir: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
enum ReportCommand {
    /// Combine JSON reports (the shards of `check --shard K/N`, or per-job reports) into one, and
    /// optionally gate it against a baseline. Exit status as `check`'s.
    Merge(check::merge::MergeArgs),
    /// Compare the facts of two reports (statuses, graphs, breaks and their lines, recompiles, errors, parity),
    /// leaving out timings, load readings and GPU placement. Exit 0 same, 1 different.
    Diff(check::merge::DiffArgs),
}

#[derive(clap::Args, Debug)]
struct ScanArgs {
    /// Files or directories to scan (default: the current directory).
    paths: Vec<PathBuf>,
    /// Only these rule codes or prefixes (comma-separated), replacing the configured selection.
    #[arg(long, value_delimiter = ',')]
    select: Option<Vec<String>>,
    /// Skip these rule codes or prefixes (comma-separated), on top of the configuration.
    #[arg(long, value_delimiter = ',')]
    ignore: Vec<String>,
    /// Skip files matching this glob (repeatable).
    #[arg(long)]
    exclude: Vec<String>,
    /// The oldest torch the project supports (overrides the floor from pyproject.toml), e.g. 2.2.
    #[arg(long, value_name = "X.Y")]
    torch_version: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    output_format: output::OutputFormat,
    /// Print diagnostics only, no summary line.
    #[arg(long, short)]
    quiet: bool,
    /// Ignore every configuration file.
    #[arg(long, conflicts_with = "config")]
    no_config: bool,
    /// Use this configuration file (pyproject.toml or graphbreak.toml) for every file.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Also scan `.pyi` stubs.
    #[arg(long)]
    include_stubs: bool,
    /// Apply the available fixes in place.
    #[arg(long)]
    fix: bool,
    /// Print the available fixes as a unified diff instead of applying them (with `--fix` too:
    /// show, don't write, as ruff does).
    #[arg(long)]
    diff: bool,
    /// Exit 0 even when there are findings (errors in usage or configuration still exit 2).
    #[arg(long)]
    exit_zero: bool,
    /// Use a `graphbreak check` report's trace map (JSON report or JSONL stream) as the region: exactly the
    /// lines Dynamo traced. Findings say whether the report saw their event. Default paths: the traced files.
    #[arg(long, value_name = "REPORT.json", conflicts_with_all = ["fix", "diff"])]
    traced: Option<PathBuf>,
    /// What the project compiles: a glob over qualified names (`pkg.models.*`, `pkg.mod.Class`,
    /// `pkg.mod.func`; `*` stays within a dotted segment, `**` spans segments). Repeatable; adds to
    /// `roots = [...]` in [tool.graphbreak]. With roots, only code they (and the project's own
    /// torch.compile calls) reach is reported; without, every nn.Module forward is a root.
    #[arg(long = "roots", value_name = "PATTERN")]
    roots: Vec<String>,
    /// Print the compile roots and how many functions each reaches, instead of the findings.
    #[arg(long)]
    show_roots: bool,
    /// Print every function the compile roots reach (`path:line: name (via ROOT)`; a JSON array
    /// with `--output-format json`), instead of the findings.
    #[arg(long, conflicts_with = "show_roots")]
    show_reached: bool,
    /// Experimental: follow values through the whole program (constructor arguments, factory and
    /// method returns, containers) to find more of what the roots reach. Slower on large trees.
    #[arg(long)]
    type_flow: bool,
    /// The Python environment the project runs in (a virtual environment or a site-packages
    /// directory; default: the active one, `$VIRTUAL_ENV`). Project classes whose bases live in
    /// other installed distributions are classified from those bases' sources, never imported;
    /// where the project declares no torch floor, its installed torch is the floor.
    #[arg(long, value_name = "DIR")]
    python_env: Option<PathBuf>,
    /// Print why the function holding FILE:LINE is traced (its call chain from a compile root),
    /// or that no root reaches it, instead of the findings.
    #[arg(long, value_name = "FILE:LINE", conflicts_with_all = ["show_roots", "show_reached"])]
    why: Option<String>,
    /// Print the nn.Module forwards in the scanned files that no root reaches, instead of the
    /// findings (their count is on the summary line whenever roots are configured).
    #[arg(long, conflicts_with = "show_roots")]
    show_unreached: bool,
    /// Report (and fail on) only findings not recorded in FILE by --write-baseline.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Record every current finding in FILE and exit 0; later runs with --baseline FILE fail only on new ones.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["baseline", "fix", "diff"])]
    write_baseline: Option<PathBuf>,
    /// Print the number of findings per rule code instead of each finding.
    #[arg(long)]
    statistics: bool,
    /// Findings reached only when a constructor option that nothing in the scanned files sets
    /// differs from its default: `warn` (shown after the rest, exit status unaffected; the
    /// default), `error` (counted like any finding) or `hide`. Overrides `option-gated = ...`.
    #[arg(long, value_enum, value_name = "MODE")]
    option_gated: Option<config::OptionGated>,
}

fn main() -> ExitCode {
    allocator::keep_freed_pages();
    let cli = Cli::parse();
    match cli.command {
        Command::Scan(args) => run_scan(args),
        Command::Check(args) => check::run(args),
        Command::Init(args) => init::run(&args),
        Command::Report(ReportCommand::Merge(args)) => check::merge::run(args),
        Command::Report(ReportCommand::Diff(args)) => check::merge::diff(args),
        Command::Cache(command) => cache::run(&command),
        Command::Rules => {
            print_rules();
            ExitCode::SUCCESS
        }
        Command::Rule { code } => match rules::by_code(&code) {
            Some(rule) => {
                print!("{}", rule.page());
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("graphbreak: unknown rule code `{code}` (see `graphbreak rules`)");
                ExitCode::from(2)
            }
        },
        Command::Recheck { report, output } => {
            match check::cross_check::recheck(&report, &output) {
                Ok(count) => {
                    eprintln!(
                        "graphbreak: {count} result(s) rechecked into {}",
                        output.display()
                    );
                    ExitCode::SUCCESS
                }
                Err(err) => {
                    eprintln!("graphbreak: error: {err}");
                    ExitCode::from(2)
                }
            }
        }
        Command::GenerateDocs { dir } => match generate_docs(&dir) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("graphbreak: {err}");
                ExitCode::from(2)
            }
        },
    }
}

/// The active virtual environment (`$VIRTUAL_ENV`) when it is one scan can read. Only a path the
/// user names with `--python-env` is an error when it is not an environment: a stale or unusual
/// `$VIRTUAL_ENV` must not stop a scan (a pre-commit hook, a shell left activated), so it is
/// skipped with a warning and the scan runs as if no environment were set.
fn active_environment() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("VIRTUAL_ENV")?);
    match semantic::environment::Environment::open(&path) {
        Ok(_) => Some(path),
        Err(message) => {
            eprintln!("graphbreak: warning: ignoring $VIRTUAL_ENV: {message}");
            None
        }
    }
}

fn run_scan(args: ScanArgs) -> ExitCode {
    let fail = |message: String| {
        eprintln!("graphbreak: error: {message}");
        ExitCode::from(2)
    };
    for code in args.select.iter().flatten().chain(args.ignore.iter()) {
        if !rules::is_known_selector(code) {
            return fail(format!(
                "unknown rule code or prefix `{code}` (see `graphbreak rules`)"
            ));
        }
    }
    let torch_version = match &args.torch_version {
        None => None,
        Some(text) if text == "latest" => None,
        Some(text) => match config::TorchVersion::parse(text) {
            Some(version) => Some(version),
            None => {
                return fail(format!(
                    "--torch-version `{text}` is not a version like 2.4"
                ));
            }
        },
    };
    let report_trace = match args.traced.as_deref().map(check::trace::load_report) {
        None => None,
        Some(Ok(trace)) => Some(trace),
        Some(Err(message)) => return fail(message),
    };
    // With a report from one torch version and no --torch-version, guards read that version (the
    // one whose trace decides the region), as `recheck` does per result.
    let torch_version = torch_version.or_else(|| match &report_trace {
        Some(trace) if args.torch_version.is_none() && trace.torch_versions.len() == 1 => trace
            .torch_versions
            .first()
            .and_then(|v| config::TorchVersion::parse(v)),
        _ => None,
    });
    let why = match args.why.as_deref().map(parse_file_line) {
        None => None,
        Some(Ok(why)) => Some(why),
        Some(Err(message)) => return fail(message),
    };
    let paths_given = !args.paths.is_empty();
    let mut paths = args.paths;
    if let Some(trace) = &report_trace
        && paths.is_empty()
    {
        paths = trace.existing_files();
        if paths.is_empty() {
            return fail("the report's traced files no longer exist here".to_owned());
        }
    }
    let scanned_paths = paths.clone();
    let options = scan::ScanOptions {
        paths,
        select: args.select,
        ignore: args.ignore,
        exclude: args.exclude,
        torch_version,
        include_stubs: args.include_stubs,
        no_config: args.no_config,
        config_file: args.config,
        region: match &report_trace {
            Some(trace) => check::cross_check::region_of(&trace.region),
            None => scan::RegionSource::Computed,
        },
        roots: args.roots,
        show_roots: args.show_roots,
        show_reached: args.show_reached,
        type_flow: args.type_flow,
        environment: args.python_env.or_else(active_environment),
        why,
    };
    let result = match scan::run_then_exit(&options) {
        Ok(result) => result,
        Err(message) => return fail(message),
    };
    let mut diagnostics = result.diagnostics;
    let cross_check = report_trace
        .as_ref()
        .map(|trace| check::cross_check::mark_confirmed(&mut diagnostics, trace, &scanned_paths));
    if result.files_scanned == 0 {
        // Nothing looked at is not "all checks passed".
        eprintln!("graphbreak: warning: no Python files to scan (0 files scanned)");
        let ignored = scan::discover::count_ignored_python_files(&options.paths);
        if ignored > 0 {
            // Say why: a parent's ignore file (a virtual environment's `*`) hides a whole tree.
            eprintln!(
                "graphbreak: note: {ignored} Python file(s) under the given paths are skipped by \
                 .gitignore/.ignore rules (a parent directory's count too, e.g. a virtual \
                 environment's `*`); name the files, or copy the tree out, to scan them"
            );
        }
        if paths_given {
            return ExitCode::from(2);
        }
    }
    let mut stdout = std::io::stdout().lock();
    if args.show_roots {
        return print_roots(&mut stdout, &result.roots, &result.roots_left_out, fail);
    }
    let json = args.output_format == output::OutputFormat::Json;
    let reach_written = if let Some(answer) = &result.why {
        Some(output::reach::write_why(&mut stdout, answer, json))
    } else if args.show_reached {
        Some(output::reach::write_reached(
            &mut stdout,
            &result.reached,
            json,
        ))
    } else {
        None
    };
    if let Some(written) = reach_written {
        return match written.and_then(|()| stdout.flush()) {
            Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                fail(format!("cannot write output: {err}"))
            }
            _ => ExitCode::SUCCESS,
        };
    }
    if args.show_unreached {
        return print_unreached(&mut stdout, &result.unreached, fail);
    }
    let mut fixed_count = None;
    if args.diff || args.fix {
        let outcome = fix::apply(&diagnostics, args.diff, &mut stdout);
        match outcome {
            Ok(fixed) => {
                if !args.diff {
                    let before = diagnostics.len();
                    diagnostics.retain(|d| {
                        d.fix.is_none() || !fixed.contains(&(d.path.clone(), d.location))
                    });
                    fixed_count = Some(before - diagnostics.len());
                } else {
                    let _ = stdout.flush();
                    return if fixed.is_empty() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::from(1)
                    };
                }
            }
            Err(message) => return fail(message),
        }
    }
    if let Some(file) = &args.write_baseline {
        return match scan_baseline::write(file, &diagnostics) {
            Ok(count) => {
                eprintln!(
                    "graphbreak: recorded {count} finding(s) in {}",
                    file.display()
                );
                ExitCode::SUCCESS
            }
            Err(message) => fail(message),
        };
    }
    // The option tier: shown after the rest (`warn`), counted (`error`) or dropped (`hide`).
    let option_gated = args
        .option_gated
        .or(result.option_gated)
        .unwrap_or_default();
    let (normal, gated): (Vec<_>, Vec<_>) =
        diagnostics.into_iter().partition(|d| !d.is_option_gated());
    let gated_count = gated.len();
    diagnostics = normal;
    if option_gated != config::OptionGated::Hide {
        diagnostics.extend(gated);
    }
    let baselined = match &args.baseline {
        Some(file) => match scan_baseline::filter(file, &mut diagnostics) {
            Ok(count) => count,
            Err(message) => return fail(message),
        },
        None => 0,
    };
    let summary = output::Summary {
        files: result.files_scanned,
        baselined,
        quiet: args.quiet,
        unreached: result.unreached.len(),
        fixed: fixed_count,
        rule_url_base: result.rule_url_base.clone(),
        option_gated: (option_gated, gated_count),
    };
    let written = if args.statistics {
        output::write_statistics(&mut stdout, args.output_format, &diagnostics)
    } else {
        output::write(&mut stdout, args.output_format, &diagnostics, &summary)
    };
    let written = written.and_then(|()| match (&cross_check, args.output_format, args.quiet) {
        (Some(summary), output::OutputFormat::Text, false) => write!(stdout, "{summary}"),
        _ => Ok(()),
    });
    if let Err(err) = written.and_then(|()| stdout.flush())
        && err.kind() != std::io::ErrorKind::BrokenPipe
    {
        return fail(format!("cannot write output: {err}"));
    }
    let failing = match option_gated {
        config::OptionGated::Error => diagnostics.len(),
        _ => diagnostics.iter().filter(|d| !d.is_option_gated()).count(),
    };
    if failing == 0 || args.exit_zero {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `--why FILE:LINE`: an existing file and a row from 1.
fn parse_file_line(text: &str) -> Result<(PathBuf, u32), String> {
    let Some((file, line)) = text.rsplit_once(':') else {
        return Err(format!("--why `{text}` is not FILE:LINE"));
    };
    let line: u32 = match line.parse() {
        Ok(line) if line > 0 => line,
        _ => return Err(format!("--why `{text}`: `{line}` is not a line number")),
    };
    let path = PathBuf::from(file);
    if !path.is_file() {
        return Err(format!("--why `{text}`: no such file `{file}`"));
    }
    Ok((path, line))
}

fn print_roots(
    out: &mut impl Write,
    roots: &[scan::RootReport],
    left_out: &[(String, String)],
    fail: impl Fn(String) -> ExitCode,
) -> ExitCode {
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut text = String::new();
    for root in roots {
        let path = root.path.strip_prefix(&cwd).unwrap_or(&root.path);
        text.push_str(&format!(
            "{}:{}: {} reaches {} function{} ({})\n",
            path.display(),
            root.line,
            root.name,
            root.reaches,
            if root.reaches == 1 { "" } else { "s" },
            root.reason
        ));
    }
    // Roots never narrow silently: a module a wildcard matched but did not root is named.
    for (module, pattern) in left_out {
        text.push_str(&format!(
            "{module}: not rooted by `{pattern}`: a private module nothing outside it imports (name it in a pattern to root it)\n"
        ));
    }
    text.push_str(&format!(
        "{} compile root{}.\n",
        roots.len(),
        if roots.len() == 1 { "" } else { "s" }
    ));
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            fail(format!("cannot write output: {err}"))
        }
        _ => ExitCode::SUCCESS,
    }
}

fn print_unreached(
    out: &mut impl Write,
    unreached: &[scan::roots::Unreached],
    fail: impl Fn(String) -> ExitCode,
) -> ExitCode {
    let mut text = String::new();
    for forward in unreached {
        text.push_str(&format!(
            "{}:{}: {} is not reached from the roots\n",
            output::display_path(&forward.path),
            forward.line,
            forward.name,
        ));
    }
    text.push_str(&format!(
        "{} nn.Module forward{} not reached from the roots.\n",
        unreached.len(),
        if unreached.len() == 1 { "" } else { "s" }
    ));
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            fail(format!("cannot write output: {err}"))
        }
        _ => ExitCode::SUCCESS,
    }
}

fn print_rules() {
    println!(
        "{:<6} {:<26} {:<8} {:<4} {:<26} summary",
        "code", "name", "family", "fix", "torch"
    );
    for rule in rules::ALL {
        println!(
            "{:<6} {:<26} {:<8} {:<4} {:<26} {}",
            rule.code,
            rule.name,
            rule.family.as_str(),
            if rule.fix_available { "yes" } else { "-" },
            rule.torch_versions,
            rule.summary
        );
    }
}

/// The rule index page, shared by `generate-docs` and the docs-are-current test.
pub fn rules_index() -> String {
    let mut out = String::from(
        "# graphbreak rules\n\nGenerated from the rule declarations in `src/rules/` by `graphbreak generate-docs`; do not edit.\n\n| code | name | family | fix | torch versions | summary |\n|---|---|---|---|---|---|\n",
    );
    for rule in rules::ALL {
        out.push_str(&format!(
            "| [{code}]({code}.md) | {name} | {family} | {fix} | {torch} | {summary} |\n",
            code = rule.code,
            name = rule.name,
            family = rule.family.as_str(),
            fix = if rule.fix_available { "yes" } else { "" },
            torch = rule.torch_versions,
            summary = rule.summary.replace('|', "\\|"),
        ));
    }
    out.push_str("\nData tables: [`data/torch_api_versions.toml`](data/torch_api_versions.toml) (used by VR001).\n");
    out
}

fn generate_docs(dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for rule in rules::ALL {
        let path = dir.join(format!("{}.md", rule.code));
        std::fs::write(&path, rule.page()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let index = dir.join("README.md");
    std::fs::write(&index, rules_index()).map_err(|e| format!("{}: {e}", index.display()))
}
