//! Shared by the integration tests that run the real binary on hostile or generated input.
// Each test crate uses a different part of it.
#![allow(dead_code)]

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
    Command::new(env!("CARGO_BIN_EXE_graphbreak"))
        .current_dir(dir)
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
