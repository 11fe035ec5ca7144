//! `graphbreak check`'s result cache end to end, with real torch (CPU): a stored result is served only
//! while nothing the case depended on changed — the case file, the files its compile traced, the modules
//! and files its build read, its parameters, the interpreter — and a failed case is always re-run.
//!
//! The project: a `models` package whose `__init__` imports both models (as a library's does), a traced
//! helper in its own file used by one model only, and a config file one factory reads.

#[macro_use]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use common::{result_for, stderr, write};

const BINARY: &str = env!("CARGO_BIN_EXE_graphbreak");

fn cache_home() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("check-cache-home")
}

const CASES: &[&str] = &[
    "cases.py::case_alpha",
    "cases.py::case_beta",
    "cases.py::case_broken",
];

fn project(dir: &Path) {
    write(
        dir,
        "models/__init__.py",
        "from .alpha import Alpha\nfrom .beta import Beta\n",
    );
    write(
        dir,
        "models/ops.py",
        "def scale(x):\n    return x * 2 + 1\n",
    );
    write(
        dir,
        "models/alpha.py",
        "import torch\n\nfrom .ops import scale\n\n\nclass Alpha(torch.nn.Module):\n    \
         def __init__(self, width):\n        super().__init__()\n        self.lin = torch.nn.Linear(width, width)\n\n    \
         def forward(self, x):\n        return scale(self.lin(x))\n",
    );
    write(
        dir,
        "models/beta.py",
        "import torch\n\n\nclass Beta(torch.nn.Module):\n    def __init__(self, width):\n        \
         super().__init__()\n        self.lin = torch.nn.Linear(width, width)\n\n    \
         def forward(self, x):\n        return torch.relu(self.lin(x))\n",
    );
    write(dir, "alpha.cfg", "4\n");
    write(dir, "notes.md", "unrelated\n");
    write(
        dir,
        "cases.py",
        "import os\n\nimport torch\n\nfrom models import Alpha, Beta\n\nHERE = os.path.dirname(os.path.abspath(__file__))\n\n\n\
         def width_from(name):\n    with open(os.path.join(HERE, name)) as f:\n        return int(f.read())\n\n\n\
         def case_alpha(factor=1):\n    width = width_from(\"alpha.cfg\") * factor\n    \
         return {\"model\": Alpha(width), \"args\": (torch.randn(2, width),), \"compile\": {\"backend\": \"eager\"}}\n\n\n\
         def case_beta():\n    return {\"model\": Beta(3), \"args\": (torch.randn(2, 3),), \"compile\": {\"backend\": \"eager\"}}\n\n\n\
         def case_broken():\n    raise RuntimeError(\"this factory always fails\")\n",
    );
}

/// `check` on `targets` in `dir` with `python`; the JSON report's results.
fn check(dir: &Path, python: &Path, targets: &[&str], extra: &[&str]) -> (Output, Vec<Value>) {
    let report = dir.join("report.json");
    let _ = std::fs::remove_file(&report);
    let mut command = Command::new(BINARY);
    command
        .arg("check")
        .args(targets)
        .args(["--no-measure", "--device", "cpu", "--output-format", "json"])
        .arg("--output")
        .arg(&report)
        .args(extra)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", cache_home())
        .env("GRAPHBREAK_PYTHON", python);
    let shown = format!("check {} {}", targets.join(" "), extra.join(" "));
    let output = common::output_echoed(&mut command, &shown);
    let results = std::fs::read_to_string(&report)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .map(|document| document["results"].as_array().cloned().unwrap_or_default())
        .unwrap_or_default();
    (output, results)
}

fn hit(results: &[Value], case: &str) -> bool {
    let result = result_for(results, case);
    result["cache"]["hit"]
        .as_bool()
        .unwrap_or_else(|| panic!("no cache mark on {case}: {result:#}"))
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} not in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_stored_result_is_served_until_something_the_case_read_changes() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    project(root);

    // Cold: the ok cases are stored, the failed one is not.
    let (output, cold) = check(root, python, CASES, &[]);
    assert_eq!(output.status.code(), Some(1), "case_broken fails");
    assert!(!hit(&cold, "::case_alpha") && !hit(&cold, "::case_beta"));
    assert!(result_for(&cold, "::case_alpha")["cache"]["key"].is_string());
    let broken = result_for(&cold, "::case_broken");
    assert_eq!(broken["status"], "factory_error");
    assert!(broken["cache"]["key"].is_null(), "{broken:#}");
    let inputs = &result_for(&cold, "::case_alpha")["build_inputs"];
    let shown = |path: &str| root.join(path).canonicalize().unwrap();
    let listed = |field: &str, path: &str| {
        inputs[field]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| Path::new(p.as_str().unwrap()).canonicalize().ok() == Some(shown(path)))
    };
    assert!(listed("opened", "alpha.cfg"), "{inputs:#}");
    assert!(listed("imported", "models/beta.py"), "{inputs:#}");
    assert_eq!(
        std::fs::read_to_string(root.join(".graphbreak/.gitignore")).unwrap(),
        "*\n",
        "the folder graphbreak made ignores itself"
    );

    // Nothing changed: both served from the cache, the failure re-run; the facts are the run's.
    let (output, warm) = check(root, python, CASES, &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(hit(&warm, "::case_alpha") && hit(&warm, "::case_beta"));
    assert!(!hit(&warm, "::case_broken"), "a failure is re-run");
    for case in ["::case_alpha", "::case_beta"] {
        let (before, after) = (result_for(&cold, case), result_for(&warm, case));
        for field in [
            "status",
            "graph_count",
            "graph_break_count",
            "traced",
            "wall_seconds",
        ] {
            assert_eq!(before[field], after[field], "{case} {field}");
        }
        assert_eq!(before["cache"]["key"], after["cache"]["key"]);
        assert!(after["cache"]["from"].is_string(), "{after:#}");
    }
    assert!(
        stderr(&output).contains("cached (run "),
        "{}",
        stderr(&output)
    );

    // An edit to a file no case read; to the body of a function of the case file that one case ran.
    edit(&root.join("notes.md"), "unrelated", "still unrelated");
    edit(&root.join("cases.py"), "(2, 3)", "(3, 3)");
    let (_, after_untouched) = check(root, python, CASES, &[]);
    assert!(
        hit(&after_untouched, "::case_alpha"),
        "case_beta's body is not case_alpha's input"
    );
    assert!(
        !hit(&after_untouched, "::case_beta"),
        "its own factory changed"
    );

    // A traced helper in another file: only the case whose compile traced it re-runs, though both
    // cases import it (through models/__init__.py).
    edit(&root.join("models/ops.py"), "x * 2 + 1", "x * 2 + 2");
    let (_, after_helper) = check(root, python, CASES, &[]);
    assert!(!hit(&after_helper, "::case_alpha"), "it traced ops.py");
    assert!(hit(&after_helper, "::case_beta"), "it only imported ops.py");

    // The other model's forward: imported by case_alpha, never run by it.
    edit(&root.join("models/beta.py"), "torch.relu", "torch.sigmoid");
    let (_, after_beta) = check(root, python, CASES, &[]);
    assert!(
        hit(&after_beta, "::case_alpha"),
        "Beta.forward never ran in case_alpha"
    );
    assert!(!hit(&after_beta, "::case_beta"), "it traced beta.py");

    // A config file the factory read.
    std::fs::write(root.join("alpha.cfg"), "5\n").unwrap();
    let (_, after_config) = check(root, python, CASES, &[]);
    assert!(!hit(&after_config, "::case_alpha"), "alpha.cfg changed");
    assert!(hit(&after_config, "::case_beta"));

    // A parameter: a new recipe, then served.
    let with_param = ["cases.py::case_alpha[factor=2]"];
    let (_, first) = check(root, python, &with_param, &[]);
    assert!(!hit(&first, "::case_alpha[factor=2]"));
    let (_, second) = check(root, python, &with_param, &[]);
    assert!(hit(&second, "::case_alpha[factor=2]"));

    // Another interpreter (a wrapper around the same one: another identity, as another torch is).
    let wrapper = write(
        root,
        "bin/python-other",
        &format!("#!/bin/sh\nexec '{}' \"$@\"\n", python.display()),
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let (_, other) = check(root, &wrapper, &CASES[..2], &[]);
    assert!(!hit(&other, "::case_alpha") && !hit(&other, "::case_beta"));
}

#[test]
fn failures_refresh_no_cache_and_a_broken_store() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    project(root);
    let targets = &["cases.py::case_beta", "cases.py::case_broken"];

    // --cache-failures stores the factory error; the next run serves it (and still exits 1).
    let (_, _) = check(root, python, targets, &["--cache-failures"]);
    let (output, failures) = check(root, python, targets, &["--cache-failures"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(hit(&failures, "::case_broken"));
    assert_eq!(
        result_for(&failures, "::case_broken")["status"],
        "factory_error"
    );
    // Without the flag a stored failure is not served.
    let (_, plain) = check(root, python, targets, &[]);
    assert!(hit(&plain, "::case_beta") && !hit(&plain, "::case_broken"));

    // --refresh runs and stores; --no-cache runs and leaves no mark.
    let (_, refreshed) = check(root, python, targets, &["--refresh"]);
    assert!(!hit(&refreshed, "::case_beta"));
    let (_, uncached) = check(root, python, targets, &["--no-cache"]);
    assert!(result_for(&uncached, "::case_beta").get("cache").is_none());

    // A corrupt entry is a warning and a re-run, never a failure of the check or a stale hit.
    let results = root.join(".graphbreak/cache/results");
    for entry in std::fs::read_dir(&results).unwrap().flatten() {
        std::fs::write(entry.path(), "{ not json").unwrap();
    }
    let (output, after_corruption) = check(root, python, &targets[..1], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!hit(&after_corruption, "::case_beta"));
    assert!(
        stderr(&output).contains("warning: result cache"),
        "{}",
        stderr(&output)
    );

    // A store that cannot be written (its folder is a file): a warning, the case's verdict stands.
    let blocked = write(root, "blocked", "a file, not a folder\n");
    let (output, unwritable) = check(
        root,
        python,
        &targets[..1],
        &["--cache-dir", blocked.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(result_for(&unwritable, "::case_beta")["status"], "ok");
    assert!(
        stderr(&output).contains("cannot store the result"),
        "{}",
        stderr(&output)
    );
}
