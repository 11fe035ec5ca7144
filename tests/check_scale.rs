//! `check --shard K/N` + `report merge`, and `check --gpus`, end to end: the real binary, the real harness,
//! real torch on CPU (the cases' own `backend="eager"`/`"aot_eager"`, seconds each).
//!
//! What "a merged sharded run equals the sequential run" means here, exactly: the two JSON reports have the same
//! top-level keys (plus `merged_from` in the merged one), the same `schema_version`, `graphbreak_version`,
//! `options`, `environment` and `interrupted`, the same results in the same order, and every result equal
//! field by field except the fields `report diff` documents as volatile (timings, compile-cache
//! temperature, output tails, the load-average reading and the notes that quote it, the GPU placement).
//! This file checks those exclusions itself rather than trusting `report diff`, and checks that `report diff`
//! does catch a changed break line.

#[macro_use]
mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use common::stderr;

const BINARY: &str = env!("CARGO_BIN_EXE_graphbreak");

/// Corpus cases covering a break, recompiles, a compile error and a training case with gradients.
const CASES: &[&str] = &[
    "corpus/cases/hazards.py::case_item_break",
    "corpus/cases/hazards.py::case_attribute_recompile",
    "corpus/cases/hazards.py::case_fullgraph_branch",
    "corpus/cases/clean.py::case_clean_training",
    "corpus/cases/clean.py::build[size=nano]",
];

/// The fields, environment readings and notes left out of the comparison: `report diff`'s own lists.
#[path = "../src/check/merge/volatile.rs"]
mod volatile;
use volatile::{
    VOLATILE_ENVIRONMENT_FIELDS, VOLATILE_FIELDS, VOLATILE_NOTE_PREFIXES, round_measurements,
};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn graphbreak(python: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(BINARY);
    command
        .args(args)
        .current_dir(repo())
        .env(
            "XDG_CACHE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("check-scale-cache"),
        )
        .env_remove("CUDA_VISIBLE_DEVICES");
    if let Some(python) = python {
        command.env("GRAPHBREAK_PYTHON", python);
    }
    common::output_echoed(&mut command, &args.join(" "))
}

/// `check CASES... --output-format json --output FILE` plus `extra`; returns the exit code.
fn check_json(python: &Path, dir: &Path, name: &str, extra: &[&str]) -> (Option<i32>, PathBuf) {
    let report = dir.join(format!("{name}.json"));
    let jsonl = dir.join(format!("{name}.jsonl"));
    // Fresh runs: this file compares runs with each other, not with stored results (issue 19's cache).
    let mut args = vec!["check", "--no-cache"];
    args.extend_from_slice(CASES);
    args.extend_from_slice(&[
        "--warmup",
        "1",
        "--steps",
        "3",
        "--output-format",
        "json",
        "--output",
        report.to_str().unwrap(),
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    args.extend_from_slice(extra);
    let output = graphbreak(Some(python), &args);
    (output.status.code(), report)
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A result without the volatile fields, the load reading and the notes quoting it.
fn facts(result: &Value) -> Value {
    let mut result = result.clone();
    let map = result.as_object_mut().unwrap();
    for field in VOLATILE_FIELDS {
        map.remove(*field);
    }
    if let Some(environment) = map.get_mut("environment").and_then(Value::as_object_mut) {
        for field in VOLATILE_ENVIRONMENT_FIELDS {
            environment.remove(*field);
        }
    }
    if let Some(notes) = map.get_mut("notes").and_then(Value::as_array_mut) {
        notes.retain(|n| {
            let text = n.as_str().unwrap();
            !VOLATILE_NOTE_PREFIXES.iter().any(|p| text.starts_with(p))
        });
    }
    round_measurements(&mut result);
    result
}

/// The exact equality the module doc defines.
fn assert_same_run(sequential: &Value, other: &Value, what: &str) {
    let keys = |v: &Value| -> BTreeSet<String> {
        v.as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "merged_from")
            .cloned()
            .collect()
    };
    assert_eq!(keys(sequential), keys(other), "{what}: top-level keys");
    for key in [
        "schema_version",
        "graphbreak_version",
        "options",
        "environment",
        "interrupted",
    ] {
        assert_eq!(sequential[key], other[key], "{what}: `{key}`");
    }
    let (a, b) = (
        sequential["results"].as_array().unwrap(),
        other["results"].as_array().unwrap(),
    );
    assert_eq!(a.len(), CASES.len());
    assert_eq!(a.len(), b.len(), "{what}: result count");
    for (x, y) in a.iter().zip(b) {
        assert_eq!(facts(x), facts(y), "{what}: {}", x["case"]);
    }
}

#[test]
fn sharded_runs_merge_into_the_sequential_run() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let (sequential_code, sequential_path) = check_json(python, dir.path(), "sequential", &[]);
    let sequential = read(&sequential_path);
    // The facts this comparison is about are really there (a comparison of empty results proves nothing).
    let statuses: Vec<&str> = sequential["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["ok", "ok", "compile_error", "ok", "ok"]);
    assert_eq!(sequential["results"][0]["graph_break_count"], 1);
    assert_eq!(sequential["results"][1]["recompiles"], 4);
    assert_eq!(sequential["results"][3]["parity_ok"], true);
    assert!(sequential["results"][3]["grad_max_abs_diff"].is_number());
    assert_eq!(
        sequential_code,
        Some(1),
        "the compile error fails the sequential run"
    );

    let mut shard_reports: Vec<Vec<PathBuf>> = Vec::new();
    for count in [2usize, 3] {
        let mut reports = Vec::new();
        let mut sizes = Vec::new();
        for index in 1..=count {
            let part = format!("{index}/{count}");
            let (_, report) = check_json(
                python,
                dir.path(),
                &format!("shard-{index}-of-{count}"),
                &["--shard", &part],
            );
            let value = read(&report);
            assert_eq!(value["shard"]["index"], index);
            sizes.push(value["results"].as_array().unwrap().len());
            reports.push(report);
        }
        assert_eq!(sizes.iter().sum::<usize>(), CASES.len(), "{count} shards");
        assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);

        // Given in reverse order: the merged report still has the sequential order.
        let merged_path = dir.path().join(format!("merged-{count}.json"));
        let mut args = vec!["report", "merge"];
        let names: Vec<String> = reports
            .iter()
            .rev()
            .map(|p| p.display().to_string())
            .collect();
        args.extend(names.iter().map(String::as_str));
        args.extend(["-o", merged_path.to_str().unwrap()]);
        let merged_run = graphbreak(None, &args);
        assert_eq!(
            merged_run.status.code(),
            sequential_code,
            "merge exits as the sequential run did"
        );
        let merged = read(&merged_path);
        assert_eq!(merged["merged_from"].as_array().unwrap().len(), count);
        assert_same_run(&sequential, &merged, &format!("{count} shards merged"));
        let diff = graphbreak(
            None,
            &[
                "report",
                "diff",
                sequential_path.to_str().unwrap(),
                merged_path.to_str().unwrap(),
            ],
        );
        assert_eq!(diff.status.code(), Some(0), "report diff agrees");
        shard_reports.push(reports);
    }

    // report diff catches a moved break (it compares, it does not just exit 0).
    let mut moved = sequential.clone();
    moved["results"][0]["graph_breaks"][0]["line"] = Value::from(1);
    let moved_path = dir.path().join("moved.json");
    std::fs::write(&moved_path, moved.to_string()).unwrap();
    let diff = graphbreak(
        None,
        &[
            "report",
            "diff",
            sequential_path.to_str().unwrap(),
            moved_path.to_str().unwrap(),
        ],
    );
    assert_eq!(diff.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&diff.stdout).contains("case_item_break · torch"));

    // Refusals, each exit 2 with the reason.
    let (two, three) = (&shard_reports[0], &shard_reports[1]);
    let refuse = |files: &[&Path], expected: &str| {
        let mut args = vec!["report".to_owned(), "merge".to_owned()];
        args.extend(files.iter().map(|p| p.display().to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = graphbreak(None, &refs);
        assert_eq!(output.status.code(), Some(2), "{expected}");
        assert!(
            stderr(&output).contains(expected),
            "wanted `{expected}` in {}",
            stderr(&output)
        );
    };
    refuse(&[&two[0], &two[0], &two[1]], "shard 1/2 given twice");
    refuse(&[&two[0]], "missing shard(s) 2/2");
    refuse(&[&two[0], &three[1]], "differ in shard count");
    refuse(&[&sequential_path, &two[0]], "some reports are shards");
    refuse(&[&sequential_path, &sequential_path], "duplicate result");
    let mut newer = read(&two[1]);
    newer["schema_version"] = Value::from(99);
    let newer_path = dir.path().join("newer.json");
    std::fs::write(&newer_path, newer.to_string()).unwrap();
    refuse(&[&two[0], &newer_path], "differ in schema_version");
    let mut overlapping = read(&two[1]);
    overlapping["shard"]["positions"][0] = read(&two[0])["shard"]["positions"][0].clone();
    let overlapping_path = dir.path().join("overlapping.json");
    std::fs::write(&overlapping_path, overlapping.to_string()).unwrap();
    refuse(&[&two[0], &overlapping_path], "overlapping shards");

    // The baseline gate on the merged report: a baseline written from the sequential run, with one break
    // fewer, makes the merged shards report that break as new.
    let baseline_path = dir.path().join("baseline.json");
    let mut baseline = sequential.clone();
    baseline["results"][0]["graph_break_count"] = Value::from(0);
    baseline["results"][0]["graph_breaks"] = Value::Array(Vec::new());
    std::fs::write(&baseline_path, baseline.to_string()).unwrap();
    let gated_path = dir.path().join("gated.json");
    let gated = graphbreak(
        None,
        &[
            "report",
            "merge",
            three[0].to_str().unwrap(),
            three[1].to_str().unwrap(),
            three[2].to_str().unwrap(),
            "--baseline",
            baseline_path.to_str().unwrap(),
            // Timings of this busy CI machine are not what this test is about.
            "--regression-threshold",
            "1000000",
            "-o",
            gated_path.to_str().unwrap(),
        ],
    );
    assert_eq!(gated.status.code(), Some(1));
    let regressions = read(&gated_path)["regressions"].clone();
    let regressions: Vec<&str> = regressions
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(regressions.len(), 2, "{regressions:?}");
    assert!(
        regressions[0].contains("case_item_break") && regressions[0].contains("graph breaks 0 → 1")
    );
    assert!(regressions[1].contains("new graph break corpus/cases/hazards.py:"));
    assert!(stderr(&gated).contains("REGRESSION"));
}

/// `--gpus` on this CPU machine: the scheduler is exercised with a stand-in for the driver's GPU listing
/// (`GRAPHBREAK_NVIDIA_SMI`, two fake GPUs; torch then sees no CUDA through the fake UUID and runs on CPU).
/// The real run on two H200s is in docs/measurements/2026-11-30-h200x2-gpus.md. Checks: results equal a sequential run, every result says
/// which GPU ran it, both GPUs were used.
#[test]
fn gpus_spread_cases_over_workers_with_identical_results() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let listing = dir.path().join("nvidia-smi");
    std::fs::write(
        &listing,
        "#!/bin/sh\necho '0, Stand-in GPU, GPU-00000000-aaaa'\necho '1, Stand-in GPU, GPU-11111111-bbbb'\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&listing, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let run = |name: &str, extra: &[&str]| {
        let report = dir.path().join(format!("{name}.json"));
        // Fresh runs: this file compares runs with each other, not with stored results (issue 19's cache).
        let mut args = vec!["check", "--no-cache"];
        args.extend_from_slice(&CASES[..3]);
        args.extend_from_slice(&[
            "--no-measure",
            "--output-format",
            "json",
            "--output",
            report.to_str().unwrap(),
            "--jsonl",
        ]);
        let jsonl = dir.path().join(format!("{name}.jsonl"));
        args.push(jsonl.to_str().unwrap());
        args.extend_from_slice(extra);
        let mut command = Command::new(BINARY);
        command
            .args(&args)
            .current_dir(repo())
            .env(
                "XDG_CACHE_HOME",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("check-scale-cache"),
            )
            .env("GRAPHBREAK_PYTHON", python)
            .env("GRAPHBREAK_NVIDIA_SMI", &listing)
            .env_remove("CUDA_VISIBLE_DEVICES");
        let output = command.output().unwrap();
        eprintln!("{}", String::from_utf8_lossy(&output.stderr));
        (output, read(&report))
    };
    let (_, sequential) = run("sequential", &[]);
    let (output, concurrent) = run("gpus", &["--gpus", "all"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the compile error still fails the run"
    );
    let results = concurrent["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    let mut used = BTreeSet::new();
    for (a, b) in sequential["results"]
        .as_array()
        .unwrap()
        .iter()
        .zip(results)
    {
        assert_eq!(a["case"], b["case"], "sequential order kept");
        assert_eq!(facts(a), facts(b));
        assert!(a.get("gpu").is_none(), "a sequential run names no GPU");
        assert_eq!(b["gpu"]["name"], "Stand-in GPU");
        used.insert(b["gpu"]["index"].as_u64().unwrap());
    }
    assert_eq!(used, BTreeSet::from([0, 1]), "both GPUs ran cases");
    assert!(stderr(&output).contains("· GPU "), "progress names the GPU");
}

#[test]
fn gpus_without_nvidia_gpus_is_a_usage_error() {
    let mut command = Command::new(BINARY);
    command
        .args([
            "check",
            "corpus/cases/hazards.py::case_item_break",
            "--gpus",
            "2",
        ])
        .current_dir(repo())
        .env("GRAPHBREAK_NVIDIA_SMI", "/nonexistent/nvidia-smi")
        .env("GRAPHBREAK_PYTHON", "/nonexistent/python");
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--gpus needs NVIDIA GPUs"),
        "{}",
        stderr(&output)
    );

    let cpu = graphbreak(
        None,
        &[
            "check",
            "corpus/cases/hazards.py::case_item_break",
            "--gpus",
            "1",
            "--device",
            "cpu",
        ],
    );
    assert_eq!(cpu.status.code(), Some(2));
    assert!(stderr(&cpu).contains("cannot be combined with --device cpu"));
    let bad = graphbreak(None, &["check", "x.py::f", "--shard", "4/3"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("expected K/N"));
}
