//! `graphbreak check` end to end: the real binary, the real harness, real torch (CPU), the corpus cases.
//!
//! Python comes from `GRAPHBREAK_PYTHON` (the test script sets it to `.venv/bin/python`), else a `python3`
//! that can import torch; without one the torch-dependent tests print a notice and return. Dynamo facts use
//! `--no-measure` and the cases' own `backend="eager"`; only the clean-case test compiles with Inductor.

#[macro_use]
mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use common::check::{BINARY, check_command, read_jsonl, repo, run_check};
use common::{line_containing, marker_line, result_for, stderr, stdout};

#[test]
fn breaks_and_recompiles_are_findings_not_failures() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("results.jsonl");
    let output = run_check(
        repo(),
        Some(python),
        &[
            "corpus/cases/hazards.py::case_item_break",
            "corpus/cases/hazards.py::case_attribute_recompile",
            "--no-measure",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    );
    let text = stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "graph breaks alone must not fail the run:\n{text}"
    );

    let item_line = marker_line(&repo().join("corpus/cases/hazards.py"), "item");
    let prefix = format!("corpus/cases/hazards.py:{item_line}: ");
    let break_line = text
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with(&prefix) && line.contains("graph break"))
        .unwrap_or_else(|| panic!("no break line at {prefix}:\n{text}"));
    assert!(break_line.contains("item()"), "{break_line}");

    let results = read_jsonl(&jsonl);
    assert_eq!(results.len(), 2, "one JSONL line per finished case");
    let attribute = result_for(&results, "::case_attribute_recompile");
    assert_eq!(attribute["status"], "ok");
    // The schedule has 5 calls and each bumps `self.calls`: every call after the first recompiles.
    assert_eq!(attribute["recompiles"], 4, "{attribute:#}");
    assert!(text.contains("recompiles: 4"), "{text}");
    let item = result_for(&results, "::case_item_break");
    assert_eq!(item["graph_break_count"], 1);
    assert_eq!(item["graph_breaks"][0]["line"], item_line);

    // The same finding is a failure when the project asks for it.
    let strict = run_check(
        repo(),
        Some(python),
        &[
            "corpus/cases/hazards.py::case_item_break",
            "--no-measure",
            "--fullgraph=false",
            "--fail-on-break",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    );
    assert_eq!(
        strict.status.code(),
        Some(1),
        "--fail-on-break turns a break into exit 1"
    );
    assert!(
        stdout(&strict).contains("fullgraph=false"),
        "options are echoed in the header"
    );
}

#[test]
fn shape_as_tensor_crash_is_reported_at_its_line() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("results.jsonl");
    let output = run_check(
        repo(),
        Some(python),
        &[
            "corpus/cases/hazards.py::case_shape_as_tensor_crash",
            "--no-measure",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    );
    let text = stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "a case that fails to compile fails the run"
    );
    let stack_line = marker_line(&repo().join("corpus/cases/hazards.py"), "stack");
    let expected = format!(
        "corpus/cases/hazards.py:{stack_line}: compile_error [compile]: TypeError: expected Tensor as \
         element 0 in argument 0, but got torch.Size"
    );
    assert!(
        text.lines().any(|l| l.trim() == expected),
        "missing `{expected}` in:\n{text}"
    );
    let results = read_jsonl(&jsonl);
    assert_eq!(results[0]["status"], "compile_error");
    assert_eq!(results[0]["error"]["type"], "TypeError");
}

#[test]
fn clean_cases_have_timings_and_parity() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let output = run_check(
        repo(),
        Some(python),
        &[
            "corpus/cases/clean.py",
            "--warmup",
            "1",
            "--steps",
            "5",
            "--output-format",
            "json",
            "--output",
            report.to_str().unwrap(),
            "--jsonl",
            dir.path().join("r.jsonl").to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let document: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(document["environment"].as_array().unwrap().len(), 1);
    assert!(document["environment"][0]["torch_version"].is_string());
    let results = document["results"].as_array().unwrap();
    let ids: Vec<&str> = results
        .iter()
        .map(|r| r["case"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "corpus/cases/clean.py::case_clean_mlp",
            "corpus/cases/clean.py::case_clean_training",
            "corpus/cases/clean.py::case_clean_bf16"
        ]
    );
    for result in results {
        assert_eq!(result["status"], "ok", "{result:#}");
        assert_eq!(result["graph_break_count"], 0, "{result:#}");
        assert_eq!(result["device"], "cpu");
        for key in ["eager_ms", "compiled_ms", "compile_seconds", "speedup"] {
            assert!(
                result[key].as_f64().is_some_and(|v| v > 0.0),
                "{key} in {result:#}"
            );
        }
        assert_eq!(result["parity_ok"], true, "{result:#}");
        assert!(
            result["max_abs_diff"]
                .as_f64()
                .is_some_and(|d| d <= result["atol"].as_f64().unwrap_or(1e-3)),
            "{result:#}"
        );
        assert_eq!(result["environment"]["steps"], 5);
    }
}

#[test]
fn hostile_cases_become_statuses() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("results.jsonl");
    let hostile = repo().join("corpus/cases/hostile.py");
    let output = run_check(
        repo(),
        Some(python),
        &[
            "corpus/cases/hostile.py::case_segfault",
            "corpus/cases/hostile.py::case_factory_raises",
            "corpus/cases/hostile.py::case_prints_megabytes",
            "corpus/cases/hostile.py::case_exits",
            "--no-measure",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let results = read_jsonl(&jsonl);
    assert_eq!(results.len(), 4);

    let segfault = result_for(&results, "::case_segfault");
    assert_eq!(segfault["status"], "crash", "{segfault:#}");
    assert!(
        segfault["error"]["message"]
            .as_str()
            .unwrap()
            .contains("SIGSEGV"),
        "{segfault:#}"
    );
    // faulthandler's innermost frame in the case file locates the crash.
    assert_eq!(segfault["error"]["filename"], hostile.display().to_string());
    let crash_line = line_containing(&hostile, "ctypes.string_at(0)");
    assert_eq!(segfault["error"]["line"], crash_line);
    assert!(
        text.contains(&format!("corpus/cases/hostile.py:{crash_line}: crash")),
        "{text}"
    );

    let raises = result_for(&results, "::case_factory_raises");
    assert_eq!(raises["status"], "factory_error");
    assert!(
        raises["error"]["message"]
            .as_str()
            .unwrap()
            .contains("factory failed on purpose")
    );
    let raise_line = marker_line(&hostile, "raises");
    assert!(
        text.contains(&format!(
            "corpus/cases/hostile.py:{raise_line}: factory_error"
        )),
        "{text}"
    );

    let loud = result_for(&results, "::case_prints_megabytes");
    assert_eq!(
        loud["status"], "ok",
        "5 MiB of output is the case's business: {loud:#}"
    );
    let tail = loud["stdout_tail"].as_str().unwrap();
    assert!(
        tail.len() <= 64 * 1024 + 100,
        "output tail is bounded ({} bytes)",
        tail.len()
    );

    let exits = result_for(&results, "::case_exits");
    assert_ne!(exits["status"], "ok", "{exits:#}");
    assert!(exits["error"].is_object(), "{exits:#}");
}

#[test]
fn hanging_case_times_out_and_its_group_is_killed() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("results.jsonl");
    let started = Instant::now();
    let output = run_check(
        repo(),
        Some(python),
        &[
            "corpus/cases/hostile.py::case_hang",
            "--timeout",
            "5",
            "--no-measure",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "took {:?}",
        started.elapsed()
    );
    let results = read_jsonl(&jsonl);
    assert_eq!(results[0]["status"], "timeout", "{:#}", results[0]);
    assert!(results[0]["wall_seconds"].as_f64().unwrap() < 15.0);
    let text = stdout(&output);
    assert!(
        text.contains("Timeout: no result within --timeout 5 s"),
        "{text}"
    );
    // Before the kill, SIGABRT makes faulthandler dump the stack, which locates the hang. (On a loaded
    // machine the harness may still be importing torch at 5 s; the location is then elsewhere.)
    let hostile = repo().join("corpus/cases/hostile.py");
    let sleep_line = line_containing(&hostile, "time.sleep(3600)");
    let stderr_tail = results[0]["stderr_tail"].as_str().unwrap();
    assert!(
        stderr_tail.contains("Fatal Python error: Aborted"),
        "{stderr_tail}"
    );
    if stderr_tail.contains("in case_hang") {
        let expected = format!("corpus/cases/hostile.py:{sleep_line}: timeout");
        assert!(text.contains(&expected), "{text}");
        // The hang is the case's own code: its seconds are the factory's, not graphbreak's.
        let wall = results[0]["wall_seconds"].as_f64().unwrap();
        let build = results[0]["phase_seconds"]["model_build"].as_f64().unwrap();
        let added = results[0]["graphbreak_seconds"].as_f64().unwrap();
        assert!(build > 0.0, "{:#}", results[0]);
        assert!((build + added - wall).abs() < 0.01, "{:#}", results[0]);
        let checking = results[0]["checking_seconds"].as_f64().unwrap();
        assert!(
            checking < 1.0,
            "graphbreak's own beyond process start: {:#}",
            results[0]
        );
    } else {
        eprintln!("NOTE: the 5 s timeout hit before the factory ran; hang location not checked");
    }
    assert!(
        text.contains("hostile.py::case_hang  2."),
        "the row names the torch version: {text}"
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_keeps_finished_results() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("results.jsonl");
    let mut child = check_command(
        repo(),
        Some(python),
        &[
            "corpus/cases/clean.py::build",
            "corpus/cases/hostile.py::case_hang",
            "--no-measure",
            "--timeout",
            "300",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while read_jsonl(&jsonl).is_empty() {
        assert!(Instant::now() < deadline, "the first case never finished");
        assert!(
            child.try_wait().unwrap().is_none(),
            "graphbreak exited early"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(1)); // the hanging case is now running
    let graphbreak_pid = child.id();
    let signalled = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let stopped = Instant::now();
    let output = child.wait_with_output().unwrap();
    eprintln!("{}\n{}", stdout(&output), stderr(&output));
    assert!(
        stopped.elapsed() < Duration::from_secs(20),
        "interrupt took {:?}",
        stopped.elapsed()
    );
    assert_eq!(output.status.code(), Some(130));
    let results = read_jsonl(&jsonl);
    assert_eq!(
        results.len(),
        1,
        "the finished case stays, the interrupted one is not recorded"
    );
    assert_eq!(results[0]["case"], "corpus/cases/clean.py::build");
    assert!(stdout(&output).contains("INTERRUPTED"));
    // The hanging case (started with a request file in graphbreak's scratch directory) is gone too.
    #[cfg(target_os = "linux")]
    {
        let scratch = format!("graphbreak-check-{graphbreak_pid}-");
        let survivors: Vec<String> = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| std::fs::read(entry.ok()?.path().join("cmdline")).ok())
            .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " "))
            .filter(|cmdline| cmdline.contains(&scratch))
            .collect();
        assert!(
            survivors.is_empty(),
            "case processes outlived the interrupt: {survivors:?}"
        );
    }
    assert!(stderr(&output).contains("1 finished result(s) kept in"));
}

const BASELINE_CASE: &str = r#"import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        y = self.proj(x)
        return y * 2


def build(size="nano"):
    width = {"nano": 4, "small": 8}[size]
    return {"model": Net(width), "args": (torch.randn(2, width),)}
"#;

#[test]
fn baseline_gate_fails_on_a_new_graph_break() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    std::fs::write(project.join("cases.py"), BASELINE_CASE).unwrap();
    std::fs::write(
        project.join("pyproject.toml"),
        r#"[tool.graphbreak.check]
cases = [{ target = "cases.py::build", params = { size = ["nano", "small"] } }]
backend = "eager"
measure = false
"#,
    )
    .unwrap();

    let first = run_check(
        project,
        Some(python),
        &["--write-baseline", "baseline.json"],
    );
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let text = stdout(&first);
    assert!(
        text.contains("cases.py::build[size=nano]") && text.contains("cases.py::build[size=small]"),
        "{text}"
    );
    let baseline: Value =
        serde_json::from_str(&std::fs::read_to_string(project.join("baseline.json")).unwrap())
            .unwrap();
    assert_eq!(baseline["results"].as_array().unwrap().len(), 2);
    assert_eq!(baseline["options"]["backend"], "eager");
    assert!(
        baseline["results"][0].get("stderr_tail").is_none(),
        "baselines are committed: no output tails"
    );
    assert_eq!(
        std::fs::read_to_string(project.join(".graphbreak/check-results.jsonl"))
            .unwrap()
            .lines()
            .count(),
        2
    );
    // The run records ignore themselves, as ruff's cache does: no untracked files in the project.
    let ignore = std::fs::read_to_string(project.join(".graphbreak/.gitignore")).unwrap();
    assert_eq!(ignore.lines().last(), Some("*"), "{ignore}");

    let unchanged = run_check(project, Some(python), &["--baseline", "baseline.json"]);
    assert_eq!(
        unchanged.status.code(),
        Some(0),
        "an unchanged run is not a regression"
    );
    assert!(stdout(&unchanged).contains("no regressions against baseline baseline.json"));
    assert_eq!(
        baseline["schema_version"], 3,
        "baselines carry the schema version"
    );
    assert_eq!(baseline["results"][0]["schema_version"], 3);

    // A baseline that promises a fact this run cannot produce (parity, measured in the baseline; this run is
    // --no-measure): not a silent pass, not a regression, its own verdict and exit code.
    let mut promising = baseline.clone();
    promising["results"][0]["parity_ok"] = Value::Bool(true);
    std::fs::write(
        project.join("promising.json"),
        serde_json::to_string(&promising).unwrap(),
    )
    .unwrap();
    let unchecked = run_check(project, Some(python), &["--baseline", "promising.json"]);
    assert_eq!(
        unchecked.status.code(),
        Some(3),
        "a comparison left unchecked exits 3: {}",
        stdout(&unchecked)
    );
    assert!(
        stdout(&unchecked).contains("UNCHECKED cases.py::build[size=nano]")
            && stdout(&unchecked).contains("parity_ok not compared: missing in this run"),
        "{}",
        stdout(&unchecked)
    );

    let edited = BASELINE_CASE.replace(
        "        return y * 2\n",
        "        scale = y.sum().item()\n        return y * scale\n",
    );
    std::fs::write(project.join("cases.py"), edited).unwrap();
    let regressed = run_check(
        project,
        Some(python),
        &["--baseline", "baseline.json", "--output-format", "markdown"],
    );
    assert_eq!(
        regressed.status.code(),
        Some(1),
        "a new graph break fails the gate"
    );
    let markdown = stdout(&regressed);
    assert!(markdown.contains("| case | torch | status |"), "{markdown}");
    for size in ["nano", "small"] {
        assert!(
            markdown.contains(&format!("- cases.py::build[size={size}] · torch ")),
            "regression listed per case:\n{markdown}"
        );
    }
    assert!(markdown.contains("graph breaks 0 → 1"), "{markdown}");
    assert!(
        markdown.contains("new graph break cases.py:12: "),
        "{markdown}"
    );
}

#[test]
fn python_without_torch_is_reported_per_case() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("bare");
    let made = Command::new(python)
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    let bare_python = venv.join("bin/python");
    let jsonl = dir.path().join("r.jsonl");
    let output = run_check(
        repo(),
        None,
        &[
            "corpus/cases/clean.py::build",
            "corpus/cases/hazards.py::case_item_break",
            "--python",
            bare_python.to_str().unwrap(),
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let results = read_jsonl(&jsonl);
    assert_eq!(results.len(), 2);
    for result in &results {
        assert_eq!(result["status"], "no_torch");
        assert!(
            result["error"]["message"]
                .as_str()
                .unwrap()
                .contains("cannot import torch"),
            "{result:#}"
        );
    }
    assert!(
        stdout(&output).contains("torch not importable"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "corpus/cases/clean.py::build",
                "--baseline",
                "/nonexistent/baseline.json",
            ],
            "--baseline /nonexistent/baseline.json",
        ),
        (&["corpus/cases/missing.py::case_x"], "file not found"),
        (
            &["corpus/cases/hazards.py::case_does_not_exist"],
            "no top-level `case_does_not_exist`",
        ),
        (
            &["corpus/cases/hazards.py::case_item_break[size]"],
            "bad target",
        ),
        (
            &["corpus/cases/hazards.py", "--dynamic", "maybe"],
            "invalid value 'maybe'",
        ),
        (
            &[
                "corpus/cases/clean.py::build",
                "--python",
                "/nonexistent/bin/python3",
            ],
            "Python interpreter not found: /nonexistent/bin/python3",
        ),
    ];
    for (args, expected) in cases {
        let mut all = args.to_vec();
        let jsonl = dir.path().join("r.jsonl");
        all.extend(["--jsonl", jsonl.to_str().unwrap()]);
        let output = run_check(repo(), None, &all);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(expected),
            "{args:?}: expected `{expected}` in {}",
            stderr(&output)
        );
    }

    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[tool.graphbreak.check]\ncases = [\"x.py\"]\nbakend = \"eager\"\n",
    )
    .unwrap();
    let output = run_check(dir.path(), None, &[]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("unknown key `bakend`") && message.contains("pyproject.toml"),
        "{message}"
    );

    let empty = tempfile::tempdir().unwrap();
    let output = run_check(empty.path(), None, &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no targets given"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn interpreter_probe_is_cached_per_interpreter_and_torch() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let report = dir.path().join(format!("{name}.json"));
        let output = check_command(
            repo(),
            Some(python),
            &[
                "corpus/cases/clean.py::build",
                "--no-measure",
                "--backend",
                "eager",
                "--output-format",
                "json",
                "--output",
                report.to_str().unwrap(),
                "--jsonl",
                dir.path().join(format!("{name}.jsonl")).to_str().unwrap(),
            ],
        )
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .output()
        .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
        document["environment"][0]["torch_version"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let first = run("first");
    let probes: Vec<PathBuf> = std::fs::read_dir(dir.path().join("cache/graphbreak/probes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(probes.len(), 1, "{probes:?}");
    // The second run must answer from the cache (no torch import): mark the cached answer.
    let mut cached: Value =
        serde_json::from_str(&std::fs::read_to_string(&probes[0]).unwrap()).unwrap();
    assert_eq!(cached["torch_version"], first.as_str());
    cached["torch_version"] = Value::from("0.0.0-from-cache");
    std::fs::write(&probes[0], cached.to_string()).unwrap();
    assert_eq!(run("second"), "0.0.0-from-cache");
}

/// The product's promise in one test: what `scan` predicts statically on the corpus cases is what
/// `check` measures under real Dynamo — the same lines, no more, no less.
#[test]
fn scan_predicts_the_lines_check_measures() {
    let python = require_torch!();
    let scan = Command::new(BINARY)
        .current_dir(repo())
        .args(["scan", "--output-format", "json", "corpus/cases/hazards.py"])
        .output()
        .unwrap();
    let findings: Vec<Value> = serde_json::from_slice(&scan.stdout).unwrap();
    let predicted: std::collections::BTreeSet<u64> = findings
        .iter()
        .map(|f| f["location"]["row"].as_u64().unwrap())
        .collect();

    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("r.jsonl");
    let cases = [
        "case_shape_as_tensor_crash",
        "case_item_break",
        "case_attribute_recompile",
        "case_fullgraph_branch",
    ]
    .map(|case| format!("corpus/cases/hazards.py::{case}"));
    let mut args: Vec<&str> = cases.iter().map(String::as_str).collect();
    args.extend([
        "--backend",
        "eager",
        "--no-measure",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    run_check(repo(), Some(python), &args);
    let mut measured = std::collections::BTreeSet::new();
    for result in read_jsonl(&jsonl) {
        if let Some(line) = result["error"]["line"].as_u64() {
            measured.insert(line);
        }
        for graph_break in result["graph_breaks"].as_array().into_iter().flatten() {
            measured.extend(graph_break["line"].as_u64());
        }
        // Recompile reasons name the guarded source line: `... hazards.py:73 in forward`.
        for reason in result["recompile_reasons"].as_array().into_iter().flatten() {
            let reason = reason.as_str().unwrap_or("");
            if let Some(at) = reason.find("hazards.py:") {
                let digits: String = reason[at + "hazards.py:".len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                measured.extend(digits.parse::<u64>().ok());
            }
        }
    }
    assert!(!measured.is_empty(), "check measured nothing");
    assert_eq!(
        predicted, measured,
        "scan's lines vs check's lines on corpus/cases/hazards.py"
    );
}

#[test]
fn profile_on_cpu_records_the_phase_split_and_says_the_rest_needs_cuda() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("r.jsonl");
    let output = run_check(
        repo(),
        Some(python),
        &[
            "corpus/cases/step_profile.py::case_sync_sites",
            "--profile",
            "--device",
            "cpu",
            "--backend",
            "eager",
            "--warmup",
            "1",
            "--steps",
            "2",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--profile measures CUDA kernels, GPU busy share and host-device syncs; no CUDA here (device cpu)"),
        "{}",
        stderr(&output)
    );
    let text = stdout(&output);
    assert!(
        text.contains("  profile (cpu, 2 steps per pass; eager → compiled):"),
        "{text}"
    );
    let phases = text
        .lines()
        .find(|l| l.trim_start().starts_with("phases eager: "))
        .unwrap_or_else(|| panic!("no eager phase line in:\n{text}"));
    for phase in ["forward", "loss", "backward", "optimizer"] {
        assert!(phases.contains(&format!("{phase} ")), "{phases}");
    }
    let results = read_jsonl(&jsonl);
    let profile = &results[0]["profile"];
    assert_eq!(profile["device"], "cpu");
    assert_eq!(profile["optimizer"], true);
    assert!(
        profile["unavailable"]
            .as_str()
            .unwrap()
            .contains("need CUDA")
    );
    assert!(profile["eager"]["kernels_per_step"].is_null());
    assert_eq!(profile["compiled"]["phases"].as_array().unwrap().len(), 4);
}

#[test]
fn profile_with_no_measure_is_a_usage_error() {
    let output = run_check(
        repo(),
        None,
        &["corpus/cases/clean.py", "--profile", "--no-measure"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--profile measures steps; it cannot run with --no-measure"),
        "{}",
        stderr(&output)
    );
}

/// One fork server serves every case of the run; a segfaulting and a hanging case between healthy ones
/// are isolated in their forked children (crash located, timeout enforced) and the server serves on.
#[cfg(target_os = "linux")]
#[test]
fn torch_version_already_active_is_used_without_building_a_venv() {
    let python = require_torch!();
    let version = Command::new(python)
        .args([
            "-c",
            "import importlib.metadata as m; v = m.version('torch').split('+')[0]; print('.'.join(v.split('.')[:2]))",
        ])
        .output()
        .expect("ask the interpreter for its torch");
    let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    assert!(!version.is_empty(), "no torch version from {python:?}");
    let cache = tempfile::tempdir().unwrap();
    let output = check_command(
        repo(),
        Some(python),
        &[
            "--torch",
            &version,
            "--no-measure",
            "corpus/cases/hazards.py::case_item_break",
        ],
    )
    .env("XDG_CACHE_HOME", cache.path())
    .output()
    .expect("run graphbreak check");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("(no venv built)"),
        "{}",
        stderr(&output)
    );
    assert!(
        !cache.path().join("graphbreak/venvs").exists(),
        "a venv was built for the torch already at hand"
    );
}
