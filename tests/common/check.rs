//! Running `graphbreak check` from the tests of check_cli.rs and check_fork_server.rs: the binary under
//! test, a private cache home, the interpreter chosen per test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub const BINARY: &str = env!("CARGO_BIN_EXE_graphbreak");

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Shared across tests and runs so Inductor's cache stays warm locally; never the user's ~/.cache.
pub fn cache_home() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("check-cli-cache")
}

pub fn check_command(cwd: &Path, python: Option<&Path>, args: &[&str]) -> Command {
    let mut command = Command::new(BINARY);
    command
        .arg("check")
        // These tests watch how cases run (workers, fates, timings): every run runs (tests/check_cache.rs
        // covers the result cache).
        .arg("--no-cache")
        .args(args)
        .current_dir(cwd)
        .env("XDG_CACHE_HOME", cache_home());
    match python {
        Some(python) => command.env("GRAPHBREAK_PYTHON", python),
        None => command.env_remove("GRAPHBREAK_PYTHON"),
    };
    command
}

pub fn run_check(cwd: &Path, python: Option<&Path>, args: &[&str]) -> Output {
    super::output_echoed(
        &mut check_command(cwd, python, args),
        &format!("check {}", args.join(" ")),
    )
}

pub fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("each JSONL line is one JSON object"))
        .collect()
}
