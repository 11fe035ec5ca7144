//! The trace map and the cross-check end to end: the real binary, the real harness, real torch (CPU), corpus
//! cases covering the three paths — a runtime event a rule predicted (`.item()` break, SY002), one no rule
//! predicted (a shape-change recompile), and a finding whose claimed break did not happen (BR002 on an import
//! probe of an installed module) — plus an `and` operand on traced lines that never runs under compile (no
//! finding), then `scan --traced` on the same results.
//!
//! Needs a Python with torch: `GRAPHBREAK_PYTHON` (relative paths are from the crate root), else `python3`.
//! Without one the test fails: a cross-check that was never run against Dynamo proves nothing.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use common::{marker_line, result_for};

const BINARY: &str = env!("CARGO_BIN_EXE_graphbreak");

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(cwd: &Path, args: &[&str]) -> Output {
    common::output_echoed(
        Command::new(BINARY).args(args).current_dir(cwd).env(
            "XDG_CACHE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("cross-check-cache"),
        ),
        &args.join(" "),
    )
}

fn lines_of(value: &Value) -> Vec<usize> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .map(|line| line as usize)
        .collect()
}

#[test]
fn cross_check_predicted_unpredicted_and_unconfirmed_on_real_dynamo() {
    // The cross-check is only meaningful against real Dynamo: no torch fails the test.
    let python = common::python_with_torch_or_panic();
    let cases = repo().join("corpus/cases");
    let hazards = cases.join("hazards.py");
    let probes = cases.join("cross_check.py");
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("results.jsonl");
    let output = run(
        &cases,
        &[
            "check",
            "--python",
            python.to_str().unwrap(),
            "--no-measure",
            "--device",
            "cpu",
            "--jsonl",
            jsonl.to_str().unwrap(),
            "hazards.py::case_item_break",
            "hazards.py::case_multi_scale",
            "cross_check.py::case_import_probe_installed",
            "cross_check.py::case_short_circuited_mask_check",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "every case runs cleanly");
    let results: Vec<Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let hazards_key = hazards.display().to_string();
    let probes_key = probes.display().to_string();

    // Predicted: Dynamo breaks on `.item()`, which it traced; SY002 is on that statement and confirmed.
    let item_line = marker_line(&hazards, "item");
    let item = result_for(&results, "case_item_break");
    assert!(
        lines_of(&item["traced"][&hazards_key]).contains(&item_line),
        "the break line is in the trace map: {}",
        item["traced"]
    );
    // Only user files: torch's own files never appear in the trace map.
    let torch_files: Vec<&String> = item["traced"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|f| f.contains("/torch/"))
        .collect();
    assert!(
        torch_files.is_empty(),
        "torch files traced: {torch_files:?}"
    );
    let events = item["cross_check"]["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0]["kind"], "break");
    assert_eq!(events[0]["filename"], hazards_key.as_str());
    assert_eq!(events[0]["line"], item_line);
    assert_eq!(events[0]["count"], 1);
    assert_eq!(events[0]["predicted_by"], serde_json::json!(["SY002"]));
    let findings = item["cross_check"]["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["code"] == "SY002" && f["line"] == item_line && f["confirmed"] == true),
        "{findings:#?}"
    );

    // Unpredicted: the multi-scale schedule recompiles on a new image size; no rule predicts it.
    let scales = result_for(&results, "case_multi_scale");
    let events = scales["cross_check"]["events"].as_array().unwrap();
    assert!(
        events.iter().any(|e| e["kind"] == "recompile"
            && e["filename"] == hazards_key.as_str()
            && e["predicted_by"] == serde_json::json!([])),
        "{events:#?}"
    );

    // Unconfirmed: BR002 claims a break for the import probe; numpy is installed, Dynamo does not break.
    let probe_line = marker_line(&probes, "probe");
    let probe = result_for(&results, "case_import_probe_installed");
    assert!(lines_of(&probe["traced"][&probes_key]).contains(&probe_line));
    assert_eq!(probe["cross_check"]["events"], serde_json::json!([]));
    let findings = probe["cross_check"]["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["code"] == "BR002" && f["line"] == probe_line && f["confirmed"] == false),
        "{findings:#?}"
    );

    // Short-circuited: the `if` header is traced, but under compile `padding_mask.all()` never runs (the first
    // operand is False): no finding there, while the real branch below is predicted and confirmed.
    let short_line = marker_line(&probes, "short_circuit");
    let mask_line = marker_line(&probes, "mask_branch");
    let mask = result_for(&results, "case_short_circuited_mask_check");
    let traced = lines_of(&mask["traced"][&probes_key]);
    assert!(
        traced.contains(&(short_line - 1)) && traced.contains(&mask_line),
        "the header and the branch are traced: {traced:?}"
    );
    let events = mask["cross_check"]["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0]["line"], mask_line);
    assert_eq!(events[0]["predicted_by"], serde_json::json!(["BR001"]));
    let findings = mask["cross_check"]["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["line"], mask_line);
    assert_eq!(findings[0]["confirmed"], true);

    // The text report ends with each event's verdict, the shares and the unpredicted table.
    let text = String::from_utf8_lossy(&output.stdout);
    let cross = text
        .split("cross-check (static scan vs what Dynamo did):")
        .nth(1)
        .expect("the report has a cross-check section");
    assert!(cross.contains(&format!("hazards.py:{item_line}: break")));
    assert!(cross.contains("predicted by SY002"));
    assert!(cross.contains("NOT PREDICTED"));
    assert!(cross.contains(&format!("cross_check.py:{probe_line}: BR002 not confirmed")));
    assert!(
        cross.contains(
            "runtime events predicted by scan: 2 of 3 (67%) · traced-line findings confirmed: 2 of 3 (67%)"
        ),
        "{cross}"
    );
    assert!(cross.contains("unpredicted events by GB code"));

    // scan --traced: the report's trace map is the region; findings say what the report saw.
    let scan = run(
        &cases,
        &["scan", "--no-config", "--traced", jsonl.to_str().unwrap()],
    );
    let scanned = String::from_utf8_lossy(&scan.stdout);
    assert_eq!(scan.status.code(), Some(1), "findings exit 1");
    assert!(scanned.contains(&format!("hazards.py:{item_line}:17: SY002 `.item()`")));
    assert!(
        scanned
            .lines()
            .any(|l| l.contains(" SY002 ") && l.ends_with("[confirmed at runtime]"))
    );
    assert!(
        scanned
            .lines()
            .any(|l| l.contains(" BR002 ") && l.contains("[not seen at runtime on torch "))
    );
    // Findings off the traced lines are not reported (hazards.py has CR001/RC001/BR001 elsewhere).
    assert!(!scanned.contains("CR001"), "{scanned}");
    // Guards still decide inside traced statements, at the report's torch version.
    assert!(
        !scanned.contains(&format!("cross_check.py:{short_line}:")),
        "{scanned}"
    );
    assert!(scanned.contains(&format!("cross_check.py:{mask_line}:")));
    assert!(scanned.contains("runtime events predicted by scan: 2 of 3 (67%)"));
}

#[test]
fn scan_traced_rejects_what_is_not_a_check_report() {
    let dir = tempfile::tempdir().unwrap();
    let bogus = dir.path().join("bogus.json");
    std::fs::write(&bogus, "{\"results\": [{\"case\": \"x\"}]}").unwrap();
    let output = run(dir.path(), &["scan", "--traced", bogus.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no result has a trace map"));
    std::fs::write(&bogus, "not json\n").unwrap();
    let output = run(dir.path(), &["scan", "--traced", bogus.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a graphbreak check report"));
    let missing = dir.path().join("missing.json");
    let output = run(dir.path(), &["scan", "--traced", missing.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read"));
}

/// A crash in the branch a tracing-only guard lets Dynamo trace: the crash (at the statement that raised,
/// after an earlier break) is predicted by the CR001 finding on that statement, which carries the guard's
/// CR002 (one cause, one finding), and the finding is confirmed. `GRAPHBREAK_TORCH25_PYTHON` also runs it on torch 2.5, whose traceback names
/// the resumed frame's `def` line.
#[test]
fn a_crash_behind_a_tracing_guard_confirms_the_guard_finding() {
    let mut pythons = vec![common::python_with_torch_or_panic().to_path_buf()];
    if let Some(old) = std::env::var_os("GRAPHBREAK_TORCH25_PYTHON") {
        pythons.push(std::path::PathBuf::from(old));
    }
    let cases = repo().join("corpus/cases");
    let file = cases.join("error_lines.py");
    let key = file.display().to_string();
    let (guard, crash) = (
        marker_line(&file, "guard"),
        marker_line(&file, "guarded_crash"),
    );
    for python in pythons {
        let dir = tempfile::tempdir().unwrap();
        let jsonl = dir.path().join("results.jsonl");
        let output = run(
            &cases,
            &[
                "check",
                "--python",
                python.to_str().unwrap(),
                "--no-measure",
                "--device",
                "cpu",
                "--jsonl",
                jsonl.to_str().unwrap(),
                "error_lines.py::case_crash_behind_a_tracing_guard",
            ],
        );
        assert_eq!(
            output.status.code(),
            Some(1),
            "the case crashes the compile"
        );
        let results: Vec<Value> = std::fs::read_to_string(&jsonl)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let result = &results[0];
        let events = result["cross_check"]["events"].as_array().unwrap();
        let crash_event = events
            .iter()
            .find(|e| e["kind"] == "crash")
            .unwrap_or_else(|| panic!("{events:#?}"));
        assert_eq!(crash_event["filename"], key.as_str());
        assert_eq!(crash_event["line"], crash, "{}", result["torch_version"]);
        assert_eq!(
            crash_event["predicted_by"],
            serde_json::json!(["CR001", "CR002"]),
            "{events:#?}"
        );
        // One cause, one finding: the guard's CR002 is merged into the CR001 finding on the
        // statement that crashes, which the crash confirms; no CR002 stands alone on the guard.
        let findings = result["cross_check"]["findings"].as_array().unwrap();
        assert!(
            findings.iter().any(|f| f["code"] == "CR001"
                && f["line"] == crash
                && f["confirmed"] == true
                && f["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(&format!("CR002 (line {guard})")))),
            "CR001 at {crash} confirmed, carrying the guard's CR002: {findings:#?}"
        );
        assert!(
            !findings.iter().any(|f| f["code"] == "CR002"),
            "no separate CR002: {findings:#?}"
        );
    }
}
