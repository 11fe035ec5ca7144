//! One (case, interpreter) run: write request.json, start the embedded harness in its own process group, and
//! turn whatever happened — a result file, a signal, a timeout, silence — into one result object
//! (protocol: docs/check-protocol.md).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::Options;
use super::cache::ResultCache;
use super::harness_files;
use super::provision::fnv1a;
use super::record::{
    CaseRequest, CaseResult, CompileRequest, ErrorInfo, ProbeEnvironment, SCHEMA_VERSION, Status,
    WorkerInfo, round3,
};
use super::runner::{self, Finished};
use super::targets::Case;
use super::worker::{ForkServer, ServerLost};

/// Bytes of each of the case's stdout/stderr kept in memory (the rest is counted and dropped).
const TAIL_LIMIT: usize = 64 * 1024;
/// Tails kept in the result of a case that ran fine: enough for warnings, small enough for committed baselines.
const OK_TAIL_LIMIT: usize = 4 * 1024;
/// Importing torch can take a while on a cold disk; a probe slower than this is a broken interpreter.
const PROBE_TIMEOUT: Duration = Duration::from_secs(180);

pub struct Interpreter {
    /// As the user named it (`--python`, GRAPHBREAK_PYTHON, a provisioned venv).
    pub path: PathBuf,
    /// The `harness.py env` object, plus `python_arg`.
    pub environment: ProbeEnvironment,
    /// Short name for tables: the torch version, qualified with the Python version when two share it.
    pub label: String,
}

impl Interpreter {
    pub fn torch_version(&self) -> Option<&str> {
        self.environment.torch_version.as_deref()
    }
}

/// Runs `<python> harness.py env`. A missing or broken interpreter is a usage error (exit 2); a Python without
/// torch is not: its cases are reported as `no_torch`.
pub fn probe(python: &Path, harness: &Path) -> Result<Interpreter, String> {
    let cached = probe_cache_file(python, harness);
    if let Some(environment) = cached
        .as_ref()
        .and_then(|file| std::fs::read_to_string(file).ok())
        .and_then(|text| serde_json::from_str::<ProbeEnvironment>(&text).ok())
    {
        return Ok(interpreter(python, environment));
    }
    let probed = probe_uncached(python, harness)?;
    if let Some(file) = cached {
        // Best effort: a cache that cannot be written only costs the next run its ~2 s.
        let _ = std::fs::create_dir_all(file.parent().unwrap_or(Path::new("."))).and_then(|()| {
            std::fs::write(
                &file,
                serde_json::to_string(&probed.environment).unwrap_or_default(),
            )
        });
    }
    Ok(probed)
}

/// The `env` probe imports torch (~2 s on CPU: most of graphbreak's own time in a run), and its
/// answer only changes when the interpreter, its torch or the GPU driver changes. The cache key is
/// found without importing torch: `importlib.util.find_spec` locates it, and the file times of the
/// interpreter, the torch package and the driver version say whether anything moved.
fn probe_cache_file(python: &Path, harness: &Path) -> Option<PathBuf> {
    const LOCATE: &str = "import importlib.util as u, sys\ns = u.find_spec('torch')\nprint(sys.executable)\nprint(s.origin if s and s.origin else '')";
    let mut command = Command::new(python);
    command.args(["-c", LOCATE]);
    let finished = runner::run_bounded(&mut command, Duration::from_secs(30), 16 * 1024).ok()?;
    if !finished.status.is_some_and(|s| s.success()) {
        return None;
    }
    let mut lines = finished.stdout_tail.lines();
    let executable = lines.next()?.trim().to_owned();
    let torch_init = lines.next().unwrap_or("").trim().to_owned();
    let stamp = |path: &Path| {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos())
    };
    let torch_dir = Path::new(&torch_init).parent().map(Path::to_path_buf);
    let key = format!(
        "{}|{}|{executable}|{}|{torch_init}|{}|{}|{}",
        python.display(),
        harness.display(),
        stamp(Path::new(&executable)),
        stamp(Path::new(&torch_init)),
        torch_dir
            .as_deref()
            .map_or(0, |d| stamp(&d.join("version.py"))),
        stamp(Path::new("/proc/driver/nvidia/version")),
    );
    Some(
        // Beside the versioned harness directories (`graphbreak cache list` shows them as probes).
        harness
            .parent()?
            .parent()?
            .join("probes")
            .join(format!("{:016x}.json", fnv1a(key.as_bytes()))),
    )
}

fn interpreter(python: &Path, mut environment: ProbeEnvironment) -> Interpreter {
    environment.python_arg = Some(python.display().to_string());
    Interpreter {
        path: python.to_path_buf(),
        environment,
        label: String::new(),
    }
}

fn probe_uncached(python: &Path, harness: &Path) -> Result<Interpreter, String> {
    let mut command = Command::new(python);
    command.arg(harness).arg("env").env("PYTHONUNBUFFERED", "1");
    let finished = runner::run_bounded(&mut command, PROBE_TIMEOUT, TAIL_LIMIT).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "Python interpreter not found: {} (set --python or GRAPHBREAK_PYTHON)",
                python.display()
            )
        } else {
            format!("cannot run Python interpreter {}: {e}", python.display())
        }
    })?;
    let parsed = finished
        .stdout_tail
        .lines()
        .rev()
        .find(|line| line.trim_start().starts_with('{'))
        .and_then(|line| serde_json::from_str::<ProbeEnvironment>(line.trim()).ok());
    let Some(environment) = parsed.filter(|_| finished.status.is_some_and(|s| s.success())) else {
        let why = if finished.timed_out {
            format!("no answer within {} s", PROBE_TIMEOUT.as_secs())
        } else {
            last_lines(&finished.stderr_tail, 3)
        };
        return Err(format!(
            "{} is not a usable Python interpreter: {why}",
            python.display()
        ));
    };
    Ok(interpreter(python, environment))
}

pub fn label_interpreters(interpreters: &mut [Interpreter]) {
    let torch_of = |i: &Interpreter| i.torch_version().unwrap_or("no torch").to_owned();
    let labels: Vec<String> = interpreters
        .iter()
        .map(|interpreter| {
            let torch = torch_of(interpreter);
            let shared = interpreters
                .iter()
                .filter(|other| torch_of(other) == torch)
                .count()
                > 1;
            if shared {
                let python = interpreter.environment.python.as_deref().unwrap_or("?");
                format!("torch {torch} (py{python}, {})", interpreter.path.display())
            } else {
                format!("torch {torch}")
            }
        })
        .collect();
    for (interpreter, label) in interpreters.iter_mut().zip(labels) {
        interpreter.label = label;
    }
}

pub struct RunSettings<'a> {
    pub harness: PathBuf,
    pub cache: PathBuf,
    pub options: &'a Options,
    /// The result cache (src/check/cache.rs); None with `--no-cache`.
    pub results: Option<ResultCache>,
}

/// Private temp directory for request/result files, removed on drop.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    pub fn new() -> Result<Self, String> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("graphbreak-check-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(Scratch { dir })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Where one lane (the sequential run, or one GPU of `--gpus`) runs its cases: per interpreter, a fork
/// server while it serves, else spawned processes (with the reason). Dropping the lane ends its servers.
pub struct Lane {
    /// Set in every case process of the lane (`--gpus` pins the lane's GPU with CUDA_VISIBLE_DEVICES).
    env: Vec<(String, String)>,
    modes: Vec<(PathBuf, LaneMode)>,
}

enum LaneMode {
    Server(ForkServer),
    /// Why not a fork server, and what a failed attempt to start one cost (reported once).
    Spawn(String, Option<f64>),
}

impl Lane {
    pub fn new(env: Vec<(String, String)>) -> Self {
        Lane {
            env,
            modes: Vec::new(),
        }
    }

    /// The interpreter's mode in this lane, starting its fork server on first use.
    fn mode(
        &mut self,
        interpreter: &Interpreter,
        settings: &RunSettings,
        env: &[(String, String)],
    ) -> &mut LaneMode {
        let position = match self
            .modes
            .iter()
            .position(|(path, _)| *path == interpreter.path)
        {
            Some(position) => position,
            None => {
                let mode = start_mode(interpreter, settings, env);
                self.modes.push((interpreter.path.clone(), mode));
                self.modes.len() - 1
            }
        };
        &mut self.modes[position].1
    }
}

/// A lane's mode on an interpreter it has not run yet: its fork server, or why it spawns.
fn start_mode(
    interpreter: &Interpreter,
    settings: &RunSettings,
    env: &[(String, String)],
) -> LaneMode {
    if let Some(reason) = spawn_reason() {
        return LaneMode::Spawn(reason, None);
    }
    let started = Instant::now();
    match ForkServer::start(
        &interpreter.path,
        &settings.harness,
        &settings.options.device,
        env,
    ) {
        Ok(server) => LaneMode::Server(server),
        Err(reason) => LaneMode::Spawn(
            format!("fork server not used: {reason}"),
            Some(started.elapsed().as_secs_f64()),
        ),
    }
}

/// Why this platform or configuration spawns every case (None: try a fork server).
fn spawn_reason() -> Option<String> {
    if std::env::var("GRAPHBREAK_WORKER").is_ok_and(|v| v == "spawn") {
        return Some("GRAPHBREAK_WORKER=spawn".into());
    }
    if !cfg!(target_os = "linux") {
        return Some("the fork server needs Linux".into());
    }
    None
}

/// Runs one case on one interpreter. `Ok(None)` = interrupted (the case is not recorded).
pub fn run_case(
    case: &Case,
    interpreter: &Interpreter,
    settings: &RunSettings,
    scratch: &Scratch,
    index: usize,
    lane: &mut Lane,
) -> Result<Option<CaseResult>, String> {
    let options = settings.options;
    if interpreter.torch_version().is_none() {
        let why = interpreter
            .environment
            .torch_error
            .as_deref()
            .unwrap_or("torch is not importable");
        let mut result = base_result(case, interpreter, options);
        result.status = Status::NoTorch;
        result.error = Some(ErrorInfo {
            error_type: Some("NoTorch".into()),
            message: Some(format!(
                "{} cannot import torch: {why}",
                interpreter.path.display()
            )),
            traceback_tail: Some(String::new()),
            ..ErrorInfo::default()
        });
        result.wall_seconds = Some(0.0);
        return Ok(Some(result));
    }

    let request = CaseRequest {
        schema_version: SCHEMA_VERSION,
        node_id: case.node_id.clone(),
        file: case.file.display().to_string(),
        factory: case.factory.clone(),
        params: case.params.clone(),
        device: options.device.clone(),
        compile: CompileRequest {
            backend: options.backend.clone(),
            dynamic: options.dynamic.clone(),
            mode: options.mode.clone(),
            fullgraph: options.fullgraph,
        },
        warmup: options.warmup,
        steps: options.steps,
        measure: options.measure,
        profile: options.profile,
    };
    let cached = settings.results.as_ref().map(|cache| {
        let recipe = ResultCache::recipe(
            &request,
            case,
            interpreter,
            options.timeout,
            harness_files::contents(),
        );
        (cache, recipe)
    });
    if let Some(hit) = cached
        .as_ref()
        .and_then(|(cache, recipe)| cache.lookup(recipe))
    {
        return Ok(Some(hit));
    }
    let started = std::time::SystemTime::now();
    let remember = |mut result: Option<CaseResult>| {
        if let (Some(result), Some((cache, recipe))) = (result.as_mut(), &cached) {
            cache.store(recipe, case, result, started);
        }
        result
    };
    let request_path = scratch.dir.join(format!("request-{index}.json"));
    let result_path = scratch.dir.join(format!("result-{index}.json"));
    let request_text = serde_json::to_string(&request).map_err(|e| e.to_string())?;
    std::fs::write(&request_path, request_text)
        .map_err(|e| format!("cannot write {}: {e}", request_path.display()))?;
    let _ = std::fs::remove_file(&result_path);

    let torch_dir = settings.cache.join(format!(
        "torch-{}",
        sanitize(interpreter.torch_version().unwrap_or("none"))
    ));
    let mut env: Vec<(String, String)> = vec![
        (
            "TORCHINDUCTOR_CACHE_DIR".into(),
            torch_dir.join("inductor").display().to_string(),
        ),
        (
            "TRITON_CACHE_DIR".into(),
            torch_dir.join("triton").display().to_string(),
        ),
    ];
    env.extend(lane.env.iter().cloned());
    let timeout = Duration::from_secs_f64(options.timeout);
    let mut server_lost: Option<String> = None;
    // A server's start-up is reported once (worker.start_seconds, the run's cost), not in this case's wall.
    let mode = lane.mode(interpreter, settings, &env);
    let since = Instant::now();
    if let LaneMode::Server(server) = mode {
        match server.run_case(
            &request_path,
            &result_path,
            &case.cwd,
            timeout,
            TAIL_LIMIT,
            since,
        ) {
            Ok(finished) => {
                let info = server.info();
                return Ok(remember(finish(
                    case,
                    interpreter,
                    &result_path,
                    &finished,
                    options,
                    info,
                )));
            }
            Err(ServerLost(why)) => {
                // The case runs again, spawned; so do the lane's next cases on this interpreter. No new
                // server: one that died under a case (the OOM killer, a case that kills it) would likely
                // die again, and a spawned case cannot take anything else down with it.
                let reason = format!(
                    "the fork server was lost during its case {} ({}): {why}; spawning from there on",
                    server.served(),
                    case.node_id
                );
                *mode = LaneMode::Spawn(reason, None);
                server_lost = Some(why);
                let _ = std::fs::remove_file(&result_path);
            }
        }
    }
    // The lane spawns here: it always did, or its server was just lost.
    let (reason, attempt_seconds) = match mode {
        LaneMode::Spawn(reason, attempt) => (reason.clone(), attempt.take()),
        LaneMode::Server(_) => Default::default(),
    };
    if runner::interrupted() {
        return Ok(None);
    }
    let mut command = Command::new(&interpreter.path);
    command
        .arg("-X")
        .arg("faulthandler")
        .arg(&settings.harness)
        .arg("run")
        .arg(&request_path)
        .arg(&result_path)
        .current_dir(&case.cwd)
        .env("PYTHONUNBUFFERED", "1")
        .envs(env.iter().map(|(key, value)| (key, value)))
        // The harness subtracts this from its own start to report the interpreter's start-up.
        .env("GRAPHBREAK_SPAWNED_AT", epoch_seconds());
    let finished = runner::run_bounded(&mut command, timeout, TAIL_LIMIT)
        .map_err(|e| format!("cannot run {}: {e}", interpreter.path.display()))?;
    let info = WorkerInfo {
        mode: Some("spawn".into()),
        fallback: Some(reason),
        start_seconds: attempt_seconds.map(round3),
        server_lost,
        ..WorkerInfo::default()
    };
    Ok(remember(finish(
        case,
        interpreter,
        &result_path,
        &finished,
        options,
        info,
    )))
}

/// The result of a finished process (None: interrupted, not recorded).
fn finish(
    case: &Case,
    interpreter: &Interpreter,
    result_path: &Path,
    finished: &Finished,
    options: &Options,
    worker: WorkerInfo,
) -> Option<CaseResult> {
    if finished.interrupted {
        return None;
    }
    let written = std::fs::read_to_string(result_path)
        .ok()
        .and_then(|text| read_result(&text));
    let mut result = classify(case, interpreter, written, finished, options);
    result.worker = Some(worker);
    Some(result)
}

/// A result file the harness wrote. One that does not parse as the record (a hand-edited or truncated file)
/// is treated as no result: the process's fate then decides the status.
fn read_result(text: &str) -> Option<CaseResult> {
    serde_json::from_str::<CaseResult>(text).ok()
}

/// The result of a run: the harness's own when it finished; otherwise the process's fate decides the status,
/// keeping any facts the harness had already written.
fn classify(
    case: &Case,
    interpreter: &Interpreter,
    written: Option<CaseResult>,
    finished: &Finished,
    options: &Options,
) -> CaseResult {
    let had_result = written.is_some();
    let base = base_result(case, interpreter, options);
    let mut result = written.unwrap_or_else(|| base.clone());
    // A result written early (before the harness got far) lacks what the probe already knows.
    result.schema_version = result.schema_version.or(base.schema_version);
    result.case = result.case.or(base.case);
    result.python = result.python.or(base.python);
    result.python_executable = result.python_executable.or(base.python_executable);
    result.torch_version = result.torch_version.or(base.torch_version);
    result.device = result.device.or(base.device);
    let previous_phase = result.error.as_ref().and_then(|e| e.phase.clone());
    let fate = if finished.timed_out {
        Some((
            Status::Timeout,
            "Timeout",
            format!(
                "no result within --timeout {} s; the case's process group was killed",
                options.timeout
            ),
        ))
    } else if let Some(signal) = finished.signal() {
        let name = runner::signal_name(signal);
        if signal == 9 {
            Some((
                Status::Oom,
                "Killed",
                format!("killed by {name} (signal {signal}), most likely the out-of-memory killer"),
            ))
        } else {
            Some((
                Status::Crash,
                "Crash",
                format!("process died of {name} (signal {signal})"),
            ))
        }
    } else if !had_result {
        let code = finished
            .status
            .and_then(|s| s.code())
            .map_or("unknown".to_owned(), |c| c.to_string());
        Some((
            Status::HarnessError,
            "HarnessError",
            format!(
                "exited with code {code} without writing a result: {}",
                last_lines(&finished.stderr_tail, 3)
            ),
        ))
    } else {
        None
    };
    // The process died: the phase it was in (its last checkpoint) gets the seconds no timed phase covers.
    let in_flight = fate.as_ref().and(previous_phase.clone());
    if let Some((status, error_type, message)) = fate {
        // A crash report names the innermost user frame faulthandler printed, when there is one.
        let (filename, line) = faulthandler_frame(&finished.stderr_tail, &case.file).unzip();
        result.status = status;
        result.error = Some(ErrorInfo {
            error_type: Some(error_type.to_owned()),
            message: Some(message),
            filename,
            line,
            phase: previous_phase,
            traceback_tail: Some(last_lines(&finished.stderr_tail, 30)),
            ..ErrorInfo::default()
        });
    }
    let keep = if result.status.is_ok() {
        OK_TAIL_LIMIT
    } else {
        TAIL_LIMIT
    };
    result.wall_seconds = Some(round3(finished.wall_seconds));
    account_wall_time(&mut result, finished.wall_seconds, in_flight.as_deref());
    result.stdout_tail = Some(tail_chars(&finished.stdout_tail, keep));
    result.stderr_tail = Some(tail_chars(&finished.stderr_tail, keep));
    result
}

/// Splits the subprocess's wall time into the case's own work (building the model, compiling it for each
/// input of the schedule) and what graphbreak adds around it; `process_other` is what no harness phase covers.
/// `in_flight`: the phase a process that died was in; the seconds after its last checkpoint are that phase's.
fn account_wall_time(result: &mut CaseResult, wall_seconds: f64, in_flight: Option<&str>) {
    let Some(phases) = result.phase_seconds.as_mut() else {
        return;
    };
    if let Some(phase) = in_flight {
        let uncovered = wall_seconds - phases.harness_total();
        if uncovered > 0.0 {
            phases.charge_in_flight(phase, uncovered);
        }
    }
    let covered = phases.harness_total();
    phases.process_other = Some(round3((wall_seconds - covered).max(0.0)));
    let added = (wall_seconds - phases.own_work()).max(0.0);
    let start = phases.process_start();
    let checking = (added - start).max(0.0);
    result.graphbreak_seconds = Some(round3(added));
    result.process_start_seconds = Some(round3(start));
    result.checking_seconds = Some(round3(checking));
    if wall_seconds > 0.0 {
        result.graphbreak_share = Some(round3(added / wall_seconds));
        result.checking_share = Some(round3(checking / wall_seconds));
    }
}

use super::worker::epoch_seconds;

fn base_result(case: &Case, interpreter: &Interpreter, options: &Options) -> CaseResult {
    let env = &interpreter.environment;
    // The device the harness would have picked: `auto` means cuda when the probe saw one.
    let device = match options.device.as_str() {
        "auto" if env.cuda_available => "cuda",
        "auto" => "cpu",
        other => other,
    };
    CaseResult {
        schema_version: Some(SCHEMA_VERSION),
        case: Some(case.node_id.clone()),
        python: env.python.clone(),
        python_executable: env.python_executable.clone(),
        torch_version: env.torch_version.clone(),
        device: Some(device.to_owned()),
        status: Status::HarnessError,
        ..CaseResult::default()
    }
}

/// `File "/x/case.py", line 12 in case_segfault` — the first (innermost) frame in the case's file, else the
/// first frame outside the harness.
fn faulthandler_frame(stderr: &str, case_file: &Path) -> Option<(String, u64)> {
    let frames: Vec<(String, u64)> = stderr
        .lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("File \"")?;
            let (file, rest) = rest.split_once('"')?;
            let number = rest
                .trim_start_matches(", line ")
                .split_whitespace()
                .next()?
                .parse()
                .ok()?;
            Some((file.to_owned(), number))
        })
        .collect();
    let case_file = case_file.display().to_string();
    frames
        .iter()
        .find(|(file, _)| *file == case_file)
        .or_else(|| {
            frames
                .iter()
                .find(|(file, _)| !file.contains("graphbreak/harness-"))
        })
        .cloned()
}

fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(count);
    let joined = lines[start..].join("\n");
    if joined.is_empty() {
        "(no output)".to_owned()
    } else {
        joined
    }
}

fn tail_chars(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut start = text.len() - limit;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_owned()
}

fn sanitize(version: &str) -> String {
    version
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value, json};

    #[cfg(unix)]
    #[test]
    fn process_fates_map_to_statuses() {
        use std::os::unix::process::ExitStatusExt;
        let options = super::super::Options {
            pythons: Vec::new(),
            torch: Vec::new(),
            requirements: None,
            device: "auto".into(),
            backend: None,
            dynamic: Value::Null,
            mode: None,
            fullgraph: None,
            warmup: 3,
            steps: 10,
            timeout: 5.0,
            measure: true,
            output_format: super::super::OutputFormat::Text,
            output: None,
            jsonl: PathBuf::from("x.jsonl"),
            baseline: None,
            write_baseline: None,
            regression_threshold: 10.0,
            fail_on_break: false,
            profile: false,
        };
        let case = Case {
            node_id: "c.py::case_x".into(),
            file: PathBuf::from("/p/c.py"),
            factory: "case_x".into(),
            params: Map::new(),
            cwd: PathBuf::from("/p"),
        };
        let interpreter = Interpreter {
            path: PathBuf::from("python3"),
            environment: serde_json::from_value(
                json!({"python": "3.11.7", "python_executable": "/usr/bin/python3",
                       "torch_version": "2.11.0", "cuda_available": false}),
            )
            .unwrap(),
            label: "torch 2.11.0".into(),
        };
        // Raw wait statuses: a signal number alone = killed by it; `code << 8` = exited with code.
        let fate = |raw: i32, timed_out: bool, written: Option<Value>| {
            let written = written.map(|value| serde_json::from_value::<CaseResult>(value).unwrap());
            let finished = Finished {
                status: Some(std::process::ExitStatus::from_raw(raw)),
                timed_out,
                interrupted: false,
                wall_seconds: 1.0,
                stdout_tail: String::new(),
                stderr_tail: "  File \"/p/c.py\", line 9 in case_x\n".into(),
            };
            serde_json::to_value(classify(&case, &interpreter, written, &finished, &options))
                .unwrap()
        };
        let crash = fate(11, false, None);
        assert_eq!(crash["status"], "crash");
        assert_eq!(crash["error"]["line"], 9);
        assert_eq!(crash["torch_version"], "2.11.0", "filled from the probe");
        assert_eq!(crash["device"], "cpu", "auto without CUDA");
        assert_eq!(fate(9, false, None)["status"], "oom");
        assert_eq!(fate(6, true, None)["status"], "timeout");
        let silent = fate(1 << 8, false, None);
        assert_eq!(silent["status"], "harness_error");
        assert!(
            silent["error"]["message"]
                .as_str()
                .unwrap()
                .contains("exited with code 1")
        );
        let early =
            json!({"status": "harness_error", "error": {"phase": "compile"}, "graph_breaks": []});
        let died_compiling = fate(11, false, Some(early));
        assert_eq!(died_compiling["status"], "crash");
        assert_eq!(
            died_compiling["error"]["phase"], "compile",
            "keeps where the harness got to"
        );
        // Killed at the timeout in the factory (its last checkpoint) after 0.7 s of timed start-up: the
        // 0.3 s since are the factory's, the case's own time, not graphbreak's.
        let hung = json!({"status": "harness_error", "error": {"phase": "factory"}, "graph_breaks": [],
                          "phase_seconds": {"interpreter_start": 0.1, "torch_import": 0.5, "device_init": 0.1}});
        let hung = fate(9, true, Some(hung));
        assert_eq!(hung["status"], "timeout");
        assert_eq!(hung["phase_seconds"]["model_build"], 0.3);
        assert_eq!(hung["graphbreak_seconds"], 0.7);
        assert_eq!(hung["checking_seconds"], 0.0);
        // Killed while compiling: charged to compile, also the case's own.
        let compiling = json!({"status": "harness_error", "error": {"phase": "compile"}, "graph_breaks": [],
                               "phase_seconds": {"torch_import": 0.5, "model_build": 0.1, "eager_step": 0.1}});
        let compiling = fate(9, true, Some(compiling));
        assert_eq!(compiling["phase_seconds"]["compile"], 0.3);
        assert_eq!(compiling["graphbreak_seconds"], 0.6);
        let finished = json!({"status": "parity_fail", "graph_breaks": [], "eager_ms": 1.5});
        let kept = fate(0, false, Some(finished));
        assert_eq!(kept["status"], "parity_fail");
        assert_eq!(kept["eager_ms"], 1.5);
        assert_eq!(kept["wall_seconds"], 1.0);
    }

    #[test]
    fn finds_the_case_frame_in_faulthandler_output() {
        let stderr = "Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n  \
                      File \"/usr/lib/python3.11/ctypes/__init__.py\", line 519 in string_at\n  \
                      File \"/p/cases.py\", line 12 in case_segfault\n  \
                      File \"/home/u/.cache/graphbreak/harness-1.py\", line 80 in run\n";
        assert_eq!(
            faulthandler_frame(stderr, Path::new("/p/cases.py")),
            Some(("/p/cases.py".into(), 12))
        );
        assert_eq!(
            faulthandler_frame(stderr, Path::new("/elsewhere.py")).map(|f| f.1),
            Some(519),
            "falls back to the innermost non-harness frame"
        );
        assert_eq!(faulthandler_frame("nothing here", Path::new("/p.py")), None);
    }

    #[test]
    fn tails_cut_on_char_boundaries() {
        assert_eq!(tail_chars("héllo", 4), "llo");
        assert_eq!(last_lines("a\n\nb\nc\n", 2), "b\nc");
    }
}
