//! Shared by the integration tests that run the real binary on hostile or generated input.
// Each test crate uses a different part of it.
#![allow(dead_code, unused_macros)]

pub mod check;

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// What a bounded run of a child process left behind.
pub struct Bounded {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// The deadline passed and the child was killed (then `status` is the kill's).
    pub timed_out: bool,
}

/// Runs `command` with no stdin, draining stdout and stderr on threads (a chatty child cannot
/// block on a full pipe), and kills it once `deadline` has passed.
pub fn run_bounded(command: &mut Command, deadline: Duration) -> Bounded {
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn graphbreak");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            pipe.read_to_end(&mut buf).ok();
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let stdout_reader = drain(Box::new(child.stdout.take().unwrap()));
    let stderr_reader = drain(Box::new(child.stderr.take().unwrap()));
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for graphbreak") {
            break status;
        }
        if start.elapsed() > deadline {
            timed_out = true;
            child.kill().ok();
            break child.wait().expect("reap graphbreak");
        }
        thread::sleep(Duration::from_millis(20));
    };
    Bounded {
        status,
        stdout: stdout_reader.join().unwrap(),
        stderr: stderr_reader.join().unwrap(),
        elapsed: start.elapsed(),
        timed_out,
    }
}

/// The Python the torch-backed tests run: `$GRAPHBREAK_PYTHON` (a relative path is taken from the
/// repository root), else `python3` on PATH — `None` when it cannot import torch. Probed once.
pub fn python_with_torch() -> Option<&'static std::path::Path> {
    use std::path::{Path, PathBuf};
    use std::sync::OnceLock;
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let python = match std::env::var_os("GRAPHBREAK_PYTHON") {
                Some(path) if !path.is_empty() => {
                    let path = PathBuf::from(path);
                    if path.components().count() > 1 {
                        Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
                    } else {
                        path
                    }
                }
                _ => PathBuf::from("python3"),
            };
            let works = Command::new(&python)
                .args(["-c", "import torch"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            works.then_some(python)
        })
        .as_deref()
}

/// Write `text` to `dir/name`, creating the folders on the way; the path written.
pub fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs the graphbreak binary under test with `args` in `dir`, to completion, output captured.
pub fn graphbreak(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    graphbreak_with_env(dir, &[], args)
}

/// [`graphbreak`] with extra environment variables (a private cache home, a Python).
pub fn graphbreak_with_env(
    dir: &std::path::Path,
    env: &[(&str, &std::path::Path)],
    args: &[&str],
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_graphbreak"))
        .current_dir(dir)
        // An activated virtual environment would decide environment classes and the torch floor
        // (`--python-env` defaults to it): a test names its environment, or has none.
        .env_remove("VIRTUAL_ENV")
        .envs(env.iter().copied())
        .args(args)
        .output()
        .expect("run graphbreak")
}

pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Both streams, labelled: the message of an assertion on a run's outcome.
pub fn text(output: &std::process::Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `name` is set to a yes (`1`, `true`, `yes`, any case).
pub fn flag(name: &str) -> bool {
    std::env::var(name)
        .is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes"))
}

/// What a test does when `what` (torch, a browser) is missing. Skipping is allowed only on a developer
/// machine: in CI (`CI=true`) or when the test script asks for it (`flag`, e.g. `GRAPHBREAK_REQUIRE_TORCH=1`,
/// set by scripts/test.sh) this panics, since a run without it must not report the test as passed. Else the
/// notice goes straight to the process's stderr: the harness captures `eprintln!` of passing tests, and a
/// skip must be visible in CI logs.
pub fn skip_or_fail(what: &str, flag_name: &str) {
    use std::io::Write;
    assert!(
        !(flag("CI") || flag(flag_name)),
        "no {what}, and it is required here (CI or {flag_name}=1)"
    );
    // The test harness names each test's thread after the test.
    let test = thread::current().name().unwrap_or("test").to_owned();
    let notice = format!("\nSKIPPED {test}: no {what}\n");
    let _ = std::io::stderr().write_all(notice.as_bytes());
}

/// `$found`'s `Some` value, else [`skip_or_fail`] and return from the test.
macro_rules! require {
    ($found:expr, $what:expr, $flag:expr) => {
        match $found {
            Some(found) => found,
            None => {
                $crate::common::skip_or_fail($what, $flag);
                return;
            }
        }
    };
}

/// [`python_with_torch`], else skip (developer machine) or fail (CI, `GRAPHBREAK_REQUIRE_TORCH`).
macro_rules! require_torch {
    () => {
        require!(
            $crate::common::python_with_torch(),
            "Python with torch (set GRAPHBREAK_PYTHON)",
            "GRAPHBREAK_REQUIRE_TORCH"
        )
    };
}

/// [`python_with_torch`] for tests that mean nothing without real torch: a missing torch fails them everywhere.
pub fn python_with_torch_or_panic() -> &'static std::path::Path {
    python_with_torch().unwrap_or_else(|| {
        panic!(
            "no Python that can import torch (GRAPHBREAK_PYTHON={:?}): set GRAPHBREAK_PYTHON to a Python \
             with torch (scripts/test.sh does)",
            std::env::var_os("GRAPHBREAK_PYTHON")
        )
    })
}

/// 1-based number of the first line of `file` that `is_it` accepts; panics naming `what` and the file.
pub fn line_where(file: &std::path::Path, what: &str, is_it: impl Fn(&str) -> bool) -> usize {
    std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("read {}: {e}", file.display()))
        .lines()
        .position(is_it)
        .unwrap_or_else(|| panic!("no {what} in {}", file.display()))
        + 1
}

/// 1-based line of the `# LINE: name` marker in a corpus file.
pub fn marker_line(file: &std::path::Path, name: &str) -> usize {
    let marker = format!("# LINE: {name}");
    line_where(file, &format!("`{marker}`"), |line| {
        line.trim_end().ends_with(&marker)
    })
}

/// 1-based line of the first line of `file` containing `needle`.
pub fn line_containing(file: &std::path::Path, needle: &str) -> usize {
    line_where(file, &format!("line containing `{needle}`"), |line| {
        line.contains(needle)
    })
}

/// The result of the case whose id ends with `case_suffix`.
pub fn result_for<'a>(
    results: &'a [serde_json::Value],
    case_suffix: &str,
) -> &'a serde_json::Value {
    results
        .iter()
        .find(|r| r["case"].as_str().is_some_and(|c| c.ends_with(case_suffix)))
        .unwrap_or_else(|| panic!("no result for {case_suffix} in {results:#?}"))
}

/// Runs `command` (the binary, `shown` being its arguments) to completion and echoes the run on stderr with
/// both streams: shown with --nocapture and under a failing test, where the assertion messages quote only
/// the relevant part.
pub fn output_echoed(command: &mut Command, shown: &str) -> std::process::Output {
    let output = command.output().expect("graphbreak runs");
    eprintln!(
        "$ graphbreak {shown}\n--- stdout\n{}--- stderr\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// `(line, tag)` for each line of `source` carrying a `# <tag>:` marker, for `tag` in `tags`
/// (the tier fixtures mark their lines so).
pub fn tagged_lines(source: &str, tags: &[&'static str]) -> Vec<(u32, &'static str)> {
    let mut out = Vec::new();
    for (index, line) in source.lines().enumerate() {
        for tag in tags {
            if line.contains(&format!("# {tag}:")) {
                out.push((index as u32 + 1, *tag));
            }
        }
    }
    out
}

/// The findings of `graphbreak scan . --no-config --output-format json` with `args` in `dir`
/// (panics with the output when it is not a JSON array).
pub fn scan_findings(dir: &std::path::Path, args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["scan", ".", "--no-config", "--output-format", "json"];
    all.extend_from_slice(args);
    let out = graphbreak(dir, &all);
    match serde_json::from_slice(&out.stdout) {
        Ok(serde_json::Value::Array(findings)) => findings,
        _ => panic!("{}", text(&out)),
    }
}

/// `(file name, row, tier)` of every finding of `graphbreak scan . --no-config` with `args` in
/// `dir`: tier "gated" for a finding with a non-empty `gated_by` (the option tier), else "normal".
pub fn finding_tiers(dir: &std::path::Path, args: &[&str]) -> Vec<(String, u32, &'static str)> {
    scan_findings(dir, args)
        .iter()
        .map(|finding| {
            let file = finding["filename"].as_str().unwrap();
            let name = std::path::Path::new(file).file_name().unwrap();
            let row = finding["location"]["row"].as_u64().unwrap() as u32;
            let gated = !finding["gated_by"].as_array().unwrap().is_empty();
            let tier = if gated { "gated" } else { "normal" };
            (name.to_string_lossy().into_owned(), row, tier)
        })
        .collect()
}
