//! `graphbreak check`: compile each shipped config for real, in its own subprocess, and report.
//!
//! Flow: resolve options (CLI over `[tool.graphbreak.check]`), resolve targets into cases (parsing, never
//! importing), provision `--torch` venvs, probe each interpreter (`harness.py env`), then run every
//! (case, interpreter) sequentially — compiles are CPU-heavy and timings must not interfere — appending each
//! result to the JSONL stream the moment it finishes, and finally render the report and compare to a baseline.
//! The Rust ⇄ harness contract is docs/check-protocol.md.
//!
//! Exit codes: 0 every case ran with status `ok` (graph breaks and recompiles are findings, not failures, unless
//! `--fail-on-break`); 1 a case did not run cleanly (compile/eager/factory error, parity failure, crash, timeout,
//! oom, no torch, harness error), a baseline regression, or a break under `--fail-on-break`; 2 usage or
//! configuration errors (bad target, unknown pyproject key, missing interpreter, unreadable baseline);
//! 3 every case ok and no regression, but a baseline comparison could not be made because a value is missing
//! on one side (never a silent pass); 130 interrupted (results finished so far stay in the JSONL file and are
//! reported).

mod baseline;
mod cache;
mod config;
pub mod cross_check;
mod execute;
mod gpus;
mod harness_files;
mod html;
pub mod merge;
mod parity_report;
mod profile;
mod provision;
pub mod record;
mod record_parts;
mod report;
mod runner;
mod shard;
mod step_agreement;
pub mod sync_check;
mod targets;
pub mod trace;
mod worker;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use serde_json::{Value, json};

use config::{CaseEntry, FileOptions};
use record::CaseResult;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit status: 0 every case ran (graph breaks and recompiles are findings, not failures, \
unless --fail-on-break); 1 a case failed to run (compile/eager/factory error, parity failure, crash, timeout, oom, \
no torch) or a regression against --baseline; 2 usage or configuration error; 3 no failure and no regression, but \
a baseline comparison was left unchecked because a value is missing on one side; 130 interrupted (finished \
results stay in the JSONL file)."
)]
pub struct CheckArgs {
    /// Cases: `file.py::factory`, `file.py::factory[k=v,...]`, or `file.py` (every top-level `def case_*`).
    /// None: the `cases` of `[tool.graphbreak.check]` in the nearest pyproject.toml.
    pub targets: Vec<String>,
    // Boxed so `Command::Check(CheckArgs)` stays small (clippy::large_enum_variant in main.rs).
    #[command(flatten)]
    pub flags: Box<CheckFlags>,
}

#[derive(clap::Args, Debug)]
pub struct CheckFlags {
    /// Python interpreter to run the cases with (repeatable: one report column per interpreter).
    /// Default: $GRAPHBREAK_PYTHON, else the venv graphbreak is installed in (when it has torch), else
    /// `python3` on PATH.
    #[arg(long = "python", value_name = "PATH")]
    pub python: Vec<PathBuf>,
    /// Torch versions to test, each in a cached venv (created once with venv+pip or uv): `--torch 2.5,2.11`.
    #[arg(long, value_delimiter = ',', value_name = "X.Y[,X.Y...]")]
    pub torch: Vec<String>,
    /// Requirements file installed into `--torch` venvs instead of `pip install -e <project root>`.
    #[arg(long, value_name = "FILE")]
    pub requirements: Option<PathBuf>,
    /// Device to run on (auto = cuda when available).
    #[arg(long, value_enum)]
    pub device: Option<Device>,
    /// torch.compile backend (inductor, eager, aot_eager, ...); default: the case's own, else inductor.
    #[arg(long)]
    pub backend: Option<String>,
    /// torch.compile `dynamic=` (none = explicitly None).
    #[arg(long, value_enum)]
    pub dynamic: Option<Dynamic>,
    /// torch.compile `mode=`.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// torch.compile `fullgraph=` (`--fullgraph` alone means true; else `--fullgraph=false`).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub fullgraph: Option<bool>,
    /// Untimed warm-up steps before timing (default 3).
    #[arg(long, value_name = "N")]
    pub warmup: Option<u32>,
    /// Timed steps; the report shows the median (default 10).
    #[arg(long, value_name = "N")]
    pub steps: Option<u32>,
    /// Per-case time limit in seconds; the case's whole process group is killed (default 600).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Dynamo facts only (graphs, breaks, recompiles, errors): no timings, no parity.
    #[arg(long)]
    pub no_measure: bool,
    /// Report format.
    #[arg(long, value_enum)]
    pub output_format: Option<OutputFormat>,
    /// Write the report to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Results stream, one JSON line per finished case (default .graphbreak/check-results.jsonl).
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Compare against a report written by --write-baseline; exit 1 on regressions.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record this run as a baseline (JSON).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Compiled ms/step slowdown (percent) that counts as a regression (default 10).
    #[arg(long, value_name = "PCT")]
    pub regression_threshold: Option<f64>,
    /// Exit 1 when any case has a graph break.
    #[arg(long)]
    pub fail_on_break: bool,
    /// Where the step time goes, per case, eager and compiled (CUDA): kernels per step, the share of
    /// the step the GPU is busy, host-device syncs per step with the lines causing them, and the
    /// forward/loss/backward/optimizer split. Adds three passes of --steps steps per side after timing.
    /// Without CUDA only the phase split is measured.
    #[arg(long)]
    pub profile: bool,
    /// Run only shard K of N of the (case, interpreter) list (CI matrices, job arrays); combine the shards'
    /// JSON reports with `graphbreak report merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<shard::Shard>,
    /// Run cases concurrently, one per GPU, each pinned with CUDA_VISIBLE_DEVICES (needs NVIDIA GPUs).
    #[arg(long, value_name = "N|all")]
    pub gpus: Option<gpus::GpuCount>,
    /// Neither read nor write the result cache: run every case.
    #[arg(long, conflicts_with_all = ["refresh", "cache_failures"])]
    pub no_cache: bool,
    /// Run every case and store the fresh results (the cache is written, not read).
    #[arg(long)]
    pub refresh: bool,
    /// Where the result cache lives (default .graphbreak/cache; CI can carry it between jobs).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Also store failed results (compile, eager, factory errors, parity failures); crashes, timeouts,
    /// out-of-memory kills and harness errors are always re-run.
    #[arg(long)]
    pub cache_failures: bool,
    /// Largest size of the result cache in MiB; the least recently used results are evicted first.
    #[arg(long, value_name = "MIB", default_value_t = cache::DEFAULT_SIZE_MIB)]
    pub cache_size: u64,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    Auto,
    Cuda,
    Cpu,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dynamic {
    True,
    False,
    None,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Default,
    ReduceOverhead,
    MaxAutotune,
    MaxAutotuneNoCudagraphs,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    Json,
    Markdown,
    /// One self-contained page (inline CSS/SVG, no network).
    Html,
}

/// Everything a run needs, after merging CLI flags over the pyproject's defaults.
#[derive(Debug)]
pub struct Options {
    pub pythons: Vec<PathBuf>,
    pub torch: Vec<String>,
    pub requirements: Option<PathBuf>,
    pub device: String,
    pub backend: Option<String>,
    pub dynamic: Value,
    pub mode: Option<String>,
    pub fullgraph: Option<bool>,
    pub warmup: u32,
    pub steps: u32,
    pub timeout: f64,
    pub measure: bool,
    pub output_format: OutputFormat,
    pub output: Option<PathBuf>,
    pub jsonl: PathBuf,
    pub baseline: Option<PathBuf>,
    pub write_baseline: Option<PathBuf>,
    pub regression_threshold: f64,
    pub fail_on_break: bool,
    pub profile: bool,
}

impl Options {
    /// The options as recorded in the JSON report and shown in the text header.
    fn to_json(&self) -> Value {
        json!({
            "device": self.device, "backend": self.backend, "dynamic": self.dynamic, "mode": self.mode,
            "fullgraph": self.fullgraph, "warmup": self.warmup, "steps": self.steps, "timeout": self.timeout,
            "measure": self.measure, "regression_threshold": self.regression_threshold,
            "fail_on_break": self.fail_on_break, "profile": self.profile,
        })
    }
}

pub fn run(args: CheckArgs) -> ExitCode {
    match run_checked(args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("graphbreak check: error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run_checked(args: CheckArgs) -> Result<ExitCode, String> {
    runner::install_interrupt_handler();
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let project = match config::find_pyproject(&cwd) {
        Some(path) => Some(config::load(&path)?),
        None => None,
    };
    let file_options = project
        .as_ref()
        .map(|p| p.options.clone())
        .unwrap_or_default();
    let project_root = project.as_ref().map(|p| p.root.clone());
    let options = merge_options(&args.flags, &file_options, project_root.as_deref(), &cwd)?;

    // Targets: CLI ones resolve against the current directory; configured ones against the pyproject's.
    let mut cases = Vec::new();
    if args.targets.is_empty() {
        let Some(project) = &project else {
            return Err(
                "no targets given and no pyproject.toml found (give `file.py::factory` or a file)"
                    .into(),
            );
        };
        let Some(entries) = &project.cases else {
            return Err(format!(
                "no targets given and no [tool.graphbreak.check] `cases` in {}",
                project.path.display()
            ));
        };
        for entry in entries {
            cases.extend(
                targets::resolve(entry, &project.root, &project.root)
                    .map_err(|e| format!("{}: {e}", project.path.display()))?,
            );
        }
    } else {
        let run_dir = project_root.clone().unwrap_or_else(|| cwd.clone());
        for target in &args.targets {
            let entry = CaseEntry {
                target: target.clone(),
                params: Vec::new(),
            };
            cases.extend(targets::resolve(&entry, &cwd, &run_dir)?);
        }
    }
    if cases.is_empty() {
        return Err("no cases to run".into());
    }
    // Read the baseline before spending minutes on compiles: a typo in its path is a usage error.
    let baseline_document = options
        .baseline
        .as_deref()
        .map(baseline::load)
        .transpose()?;

    // --gpus: find the GPUs before spending minutes provisioning; a machine without any is a usage error.
    let workers: Vec<Option<gpus::Gpu>> = match args.flags.gpus {
        None => vec![None],
        Some(_) if options.device == "cpu" => {
            return Err(
                "--gpus runs cases on GPUs; it cannot be combined with --device cpu".into(),
            );
        }
        Some(count) => gpus::choose(count, gpus::discover()?)?
            .into_iter()
            .map(Some)
            .collect(),
    };

    let cache = cache_dir();
    let harness = harness_files::install(&cache)?;

    // Interpreters: explicit ones first, then one provisioned venv per --torch version.
    enum Spec<'a> {
        Python(PathBuf),
        Torch(&'a str),
    }
    let mut specs: Vec<Spec> = options.pythons.iter().cloned().map(Spec::Python).collect();
    specs.extend(options.torch.iter().map(|v| Spec::Torch(v)));
    if specs.is_empty() {
        specs.push(Spec::Python(default_python(&cwd)));
    }
    let interpreter_keys: Vec<String> = specs
        .iter()
        .map(|spec| match spec {
            Spec::Python(path) => shard::interpreter_key(Some(path), None, &cwd),
            Spec::Torch(version) => shard::interpreter_key(None, Some(version), &cwd),
        })
        .collect();
    let case_keys: Vec<String> = cases.iter().map(|c| c.node_id.clone()).collect();
    let all_units = shard::all_units(cases.len(), specs.len());
    let units = match args.flags.shard {
        Some(part) => shard::select(&all_units, &case_keys, &interpreter_keys, part),
        None => all_units.clone(),
    };
    let shard_info = args.flags.shard.map(|part| shard::ShardInfo {
        index: part.index,
        count: part.count,
        units: all_units.len(),
        plan: shard::plan_fingerprint(&case_keys, &interpreter_keys),
        positions: Vec::new(),
    });
    if let Some(part) = args.flags.shard {
        eprintln!(
            "graphbreak: shard {part}: {} of {} (case, interpreter) run(s)",
            units.len(),
            all_units.len()
        );
    }

    // Only the interpreters this shard uses are provisioned and probed.
    let provisioner = provision::Provisioner {
        venvs_dir: cache.join("venvs"),
        project_root: provision::installable_project_root(project_root.as_deref().unwrap_or(&cwd)),
        requirements: options.requirements.clone(),
    };
    let mut probed: Vec<Option<execute::Interpreter>> = specs.iter().map(|_| None).collect();
    for (index, spec) in specs.iter().enumerate() {
        if !units.iter().any(|u| u.interpreter == index) {
            continue;
        }
        let path = match spec {
            Spec::Python(path) => path.clone(),
            Spec::Torch(version) => {
                let active = default_python(&cwd);
                match provision::active_torch_matching(&active, version) {
                    Some(installed) => {
                        eprintln!(
                            "graphbreak: --torch {version}: {} has torch {installed}; using it (no venv built)",
                            active.display()
                        );
                        active
                    }
                    None => provisioner.ensure(version)?,
                }
            }
        };
        let interpreter = execute::probe(&path, &harness);
        if runner::interrupted() {
            eprintln!("graphbreak: interrupted before any case ran");
            return Ok(ExitCode::from(130));
        }
        probed[index] = Some(interpreter?);
    }
    let mut interpreters: Vec<execute::Interpreter> = probed.into_iter().flatten().collect();
    execute::label_interpreters(&mut interpreters);
    if options.profile {
        let cuda =
            options.device != "cpu" && interpreters.iter().any(|i| i.environment.cuda_available);
        if !cuda {
            eprintln!(
                "graphbreak: --profile measures CUDA kernels, GPU busy share and host-device syncs; \
                 no CUDA here (device {}), so only the forward/loss/backward/optimizer split is recorded",
                options.device
            );
        }
    }
    // Back from the probed list to each spec's interpreter.
    let mut interpreter_of: Vec<Option<usize>> = vec![None; specs.len()];
    let mut next_probed = 0;
    for (index, slot) in interpreter_of.iter_mut().enumerate() {
        if units.iter().any(|u| u.interpreter == index) {
            *slot = Some(next_probed);
            next_probed += 1;
        }
    }

    let jsonl = open_jsonl(&options.jsonl)?;
    let total = units.len();
    let settings = execute::RunSettings {
        harness: harness.clone(),
        cache: cache.clone(),
        options: &options,
        results: (!args.flags.no_cache).then(|| {
            cache::ResultCache::new(
                args.flags
                    .cache_dir
                    .clone()
                    .unwrap_or_else(|| cwd.join(".graphbreak").join("cache")),
                !args.flags.refresh,
                args.flags.cache_failures,
                args.flags.cache_size,
            )
        }),
    };
    let scratch = execute::Scratch::new()?;
    let jobs: Vec<gpus::Job> = units
        .iter()
        .map(|unit| gpus::Job {
            position: unit.position,
            case: &cases[unit.case],
            interpreter: &interpreters[interpreter_of[unit.interpreter].expect("probed")],
        })
        .collect();
    let mut finished: Vec<(usize, CaseResult)> = Vec::new();
    let was_interrupted = gpus::run_jobs(&jobs, &workers, &settings, &scratch, |event| {
        match event {
            gpus::Event::Started(job, None) => {
                eprint!(
                    "[{}/{total}] {} · {} … ",
                    finished.len() + 1,
                    job.case.node_id,
                    job.interpreter.label
                );
                let _ = std::io::stderr().flush();
            }
            // Concurrent runs print one line per finished case instead (lines would interleave).
            gpus::Event::Started(_, Some(_)) => {}
            gpus::Event::Finished(job, mut result) => {
                cross_check::attach(&mut result);
                sync_check::attach(&mut result);
                match &result.gpu {
                    None => eprintln!("{}", report::progress_summary(&result)),
                    Some(gpu) => eprintln!(
                        "[{}/{total}] {} · {} · GPU {} … {}",
                        finished.len() + 1,
                        job.case.node_id,
                        job.interpreter.label,
                        gpu.index.map_or("?".to_owned(), |i| i.to_string()),
                        report::progress_summary(&result)
                    ),
                }
                append_jsonl(&jsonl, &options.jsonl, &result)?;
                finished.push((job.position, *result));
            }
        }
        Ok(())
    })?;
    if was_interrupted && workers.len() == 1 && finished.len() < total {
        eprintln!("interrupted");
    }
    drop(scratch);
    // The report lists results in the sequential order, however the GPUs finished them.
    finished.sort_by_key(|(position, _)| *position);
    let shard_info = shard_info.map(|mut info| {
        info.positions = finished.iter().map(|(position, _)| *position).collect();
        info
    });
    let results: Vec<CaseResult> = finished.into_iter().map(|(_, result)| result).collect();

    let environment: Vec<record::ProbeEnvironment> =
        interpreters.iter().map(|i| i.environment.clone()).collect();
    let mut comparison = match &baseline_document {
        Some(baseline) if !was_interrupted => baseline::compare(
            &baseline.document,
            &results,
            options.regression_threshold,
            &cwd,
        ),
        _ => baseline::Comparison::empty(),
    };
    if let Some(baseline) = &baseline_document {
        comparison
            .notes
            .splice(0..0, baseline.notes.iter().cloned());
    }
    let regressions = comparison.regressions;
    let document = report::Document {
        environment: &environment,
        results: &results,
        options: options.to_json(),
        regressions: &regressions,
        baseline_notes: &comparison.notes,
        baseline_unchecked: &comparison.unchecked,
        baseline: options.baseline.as_deref(),
        interrupted: was_interrupted,
        cwd: &cwd,
        shard: shard_info.as_ref(),
    };
    let rendered = match options.output_format {
        OutputFormat::Text => report::render_text(&document),
        OutputFormat::Markdown => report::render_markdown(&document),
        OutputFormat::Json => report::render_json(&document),
        OutputFormat::Html => html::render(&document),
    };
    match &options.output {
        Some(path) => {
            write_file(path, &rendered)?;
            eprintln!("graphbreak: report written to {}", path.display());
        }
        // A closed pipe (`graphbreak check | head`) is not an error worth a panic.
        None => {
            let _ = std::io::stdout().write_all(rendered.as_bytes());
        }
    }
    if let Some(path) = &options.write_baseline {
        if was_interrupted {
            eprintln!("graphbreak: interrupted, baseline not written (it would be incomplete)");
        } else {
            write_file(path, &baseline::render(&document))?;
            eprintln!("graphbreak: baseline written to {}", path.display());
        }
    }
    if was_interrupted {
        eprintln!(
            "graphbreak: interrupted; {} finished result(s) kept in {}",
            results.len(),
            options.jsonl.display()
        );
        return Ok(ExitCode::from(130));
    }

    let failed = results.iter().filter(|r| !r.status.is_ok()).count();
    let with_breaks = results
        .iter()
        .filter(|r| r.graph_break_count.unwrap_or(0) > 0)
        .count();
    if !regressions.is_empty() {
        eprintln!(
            "graphbreak: {} regression(s) against the baseline",
            regressions.len()
        );
    }
    let exit_one =
        failed > 0 || !regressions.is_empty() || (options.fail_on_break && with_breaks > 0);
    if !comparison.unchecked.is_empty() {
        eprintln!(
            "graphbreak: {} baseline comparison(s) left unchecked (a value is missing on one side)",
            comparison.unchecked.len()
        );
    }
    Ok(if exit_one {
        ExitCode::from(1)
    } else if !comparison.unchecked.is_empty() {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

fn merge_options(
    args: &CheckFlags,
    file: &FileOptions,
    project_root: Option<&Path>,
    cwd: &Path,
) -> Result<Options, String> {
    // Paths in the pyproject are relative to its directory; CLI paths to the current directory.
    let from_file = |p: &str| project_root.unwrap_or(cwd).join(p);
    let value_enum = |key: &str, text: &str, allowed: &[&str]| -> Result<String, String> {
        if allowed.contains(&text) {
            Ok(text.to_owned())
        } else {
            Err(format!(
                "[tool.graphbreak.check] {key} = \"{text}\": expected one of {}",
                allowed.join(", ")
            ))
        }
    };
    let device = match args.device {
        Some(d) => enum_name(d),
        None => match &file.device {
            Some(d) => value_enum("device", d, &["auto", "cuda", "cpu"])?,
            None => "auto".into(),
        },
    };
    let dynamic = match args.dynamic.map(enum_name).or_else(|| file.dynamic.clone()) {
        None => Value::Null,
        Some(text) => match text.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "none" | "None" => Value::from("none"),
            other => {
                return Err(format!(
                    "dynamic = \"{other}\": expected true, false or none"
                ));
            }
        },
    };
    let mode = match args.mode {
        Some(m) => Some(enum_name(m)),
        None => match &file.mode {
            Some(m) => Some(value_enum(
                "mode",
                m,
                &[
                    "default",
                    "reduce-overhead",
                    "max-autotune",
                    "max-autotune-no-cudagraphs",
                ],
            )?),
            None => None,
        },
    };
    let output_format = match args.output_format {
        Some(f) => f,
        None => match file.output_format.as_deref() {
            None => OutputFormat::Text,
            Some(text) => OutputFormat::from_str(text, true).map_err(|_| {
                format!("output-format = \"{text}\": expected text, json, markdown or html")
            })?,
        },
    };
    let pythons = if !args.python.is_empty() {
        args.python
            .iter()
            .map(|p| resolve_program(&p.to_string_lossy(), cwd))
            .collect()
    } else {
        file.python
            .iter()
            .map(|p| resolve_program(p, project_root.unwrap_or(cwd)))
            .collect()
    };
    let timeout = args.timeout.or(file.timeout).unwrap_or(600.0);
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(format!(
            "--timeout {timeout}: must be a positive number of seconds"
        ));
    }
    let steps = args.steps.or(file.steps).unwrap_or(10);
    if steps == 0 {
        return Err("--steps must be at least 1".into());
    }
    let regression_threshold = args
        .regression_threshold
        .or(file.regression_threshold)
        .unwrap_or(10.0);
    if !(regression_threshold.is_finite() && regression_threshold >= 0.0) {
        return Err(format!(
            "--regression-threshold {regression_threshold}: must be a percentage >= 0"
        ));
    }
    let measure = !args.no_measure && file.measure.unwrap_or(true);
    if args.profile && !measure {
        return Err(
            "--profile measures steps; it cannot run with --no-measure (or measure = false)".into(),
        );
    }
    let torch = if args.torch.is_empty() {
        file.torch.clone()
    } else {
        args.torch.clone()
    };
    for version in &torch {
        provision::torch_requirement(version)?;
    }
    Ok(Options {
        pythons,
        torch,
        requirements: args
            .requirements
            .clone()
            .or_else(|| file.requirements.as_deref().map(from_file)),
        device,
        backend: args.backend.clone().or_else(|| file.backend.clone()),
        dynamic,
        mode,
        fullgraph: args.fullgraph.or(file.fullgraph),
        warmup: args.warmup.or(file.warmup).unwrap_or(3),
        steps,
        timeout,
        measure,
        output_format,
        output: args
            .output
            .clone()
            .or_else(|| file.output.as_deref().map(from_file)),
        jsonl: args
            .jsonl
            .clone()
            .or_else(|| file.jsonl.as_deref().map(from_file))
            .unwrap_or_else(|| cwd.join(STATE_DIR).join("check-results.jsonl")),
        baseline: args
            .baseline
            .clone()
            .or_else(|| file.baseline.as_deref().map(from_file)),
        write_baseline: args.write_baseline.clone(),
        regression_threshold,
        fail_on_break: args.fail_on_break || file.fail_on_break.unwrap_or(false),
        profile: args.profile,
    })
}

/// An interpreter: a bare name (`python3.12`) is looked up on PATH; a path is made absolute against `base`
/// (cases run with the project root as their working directory, where a relative path would mean something
/// else). Lexically only: resolving a venv's `bin/python` symlink would leave the venv.
fn resolve_program(text: &str, base: &Path) -> PathBuf {
    if text.contains('/') || text.contains(std::path::MAIN_SEPARATOR) {
        targets::absolute(&base.join(text))
    } else {
        PathBuf::from(text)
    }
}

fn enum_name(value: impl ValueEnum) -> String {
    value
        .to_possible_value()
        .map(|v| v.get_name().to_owned())
        .unwrap_or_default()
}

fn default_python(cwd: &Path) -> PathBuf {
    match std::env::var_os("GRAPHBREAK_PYTHON") {
        Some(path) if !path.is_empty() => resolve_program(&path.to_string_lossy(), cwd),
        _ => installed_venv_python().unwrap_or_else(|| PathBuf::from("python3")),
    }
}

/// `pip install graphbreak` into a venv puts the executable in `<venv>/bin` next to that venv's
/// `python`: the venv that holds the project's torch. A tool venv without torch (pipx, uv tool, the
/// pre-commit hook's) is skipped, so `python3` on PATH (an activated venv's) is used instead.
fn installed_venv_python() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?;
    let prefix = bin.parent()?;
    if !(prefix.join("pyvenv.cfg").is_file() || prefix.join("conda-meta").is_dir()) {
        return None;
    }
    let python = bin.join(if cfg!(windows) {
        "python.exe"
    } else {
        "python"
    });
    // find_spec locates torch without importing it (tens of milliseconds, not seconds).
    let has_torch = std::process::Command::new(&python)
        .args([
            "-c",
            "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    has_torch.then_some(python)
}

/// `$XDG_CACHE_HOME/graphbreak`, else `~/.cache/graphbreak`, else a temp directory.
pub fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })
        .unwrap_or_else(std::env::temp_dir);
    base.join("graphbreak")
}

fn open_jsonl(path: &Path) -> Result<std::fs::File, String> {
    create_parent(path)?;
    std::fs::File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// One line per finished case, flushed and synced before the next case starts: an interrupt or a crash of
/// graphbreak itself loses at most the case that was running.
fn append_jsonl(mut file: &std::fs::File, path: &Path, result: &CaseResult) -> Result<(), String> {
    let mut line = serde_json::to_string(result).map_err(|e| e.to_string())?;
    line.push('\n');
    file.write_all(line.as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(|e| format!("cannot append to {}: {e}", path.display()))
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    create_parent(path)?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The directory graphbreak keeps its run records in, inside the user's project.
const STATE_DIR: &str = ".graphbreak";

/// Creates a file's directory. A `.graphbreak/` created here ignores itself (a `.gitignore` of
/// `*`, as ruff's cache does), so a check never leaves untracked files in the user's repository.
fn create_parent(path: &Path) -> Result<(), String> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => cache::create_dir_all_self_ignoring(parent),
        None => Ok(()),
    }
}
