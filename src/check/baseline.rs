//! `--write-baseline` / `--baseline`: the CI gate. A baseline is the JSON report of a run (output tails
//! stripped, paths made relative so it can be committed and compared on another machine).
//!
//! Results are matched by (case node id, torch version). A regression is: a worse status, more graph breaks, a
//! break whose (file, reason) the baseline does not have (matched as a multiset and ignoring the line number,
//! so an unrelated edit that shifts lines does not fail CI — the line is still printed), more recompiles, the
//! recompile limit newly hit, parity newly failing, or compiled ms/step slower than the threshold (only when
//! the device and torch version match, since timings from different hardware are not comparable).
//! Cases present on one side only are not regressions.
//!
//! A comparison whose value is missing on one side (a torch that cannot count recompiles, a baseline written
//! with --no-measure, a result from an older graphbreak) is never skipped silently: it is listed as
//! *unchecked*, and a run whose only problem is unchecked comparisons exits 3, not 0.

use std::path::Path;

use serde_json::Value;

use super::record::{CaseResult, GraphBreak, ReportDocument, SCHEMA_VERSION, Status};
use super::report::{self, Document};

pub struct Baseline {
    pub document: ReportDocument,
    /// What the loader wants said (a baseline from a newer schema).
    pub notes: Vec<String>,
}

pub fn load(path: &Path) -> Result<Baseline, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--baseline {}: {e}", path.display()))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "--baseline {}: not a graphbreak JSON report: {e}",
            path.display()
        )
    })?;
    if !value["results"].is_array() {
        return Err(format!(
            "--baseline {}: no `results` list (write one with --write-baseline)",
            path.display()
        ));
    }
    let document: ReportDocument = serde_json::from_value(value).map_err(|e| {
        format!(
            "--baseline {}: a result does not match the result schema: {e}",
            path.display()
        )
    })?;
    let mut notes = Vec::new();
    if let Some(version) = document.schema_version
        && version > SCHEMA_VERSION
    {
        notes.push(format!(
            "baseline schema_version {version} is newer than this graphbreak's ({SCHEMA_VERSION}): \
             fields it does not know are not compared"
        ));
    }
    Ok(Baseline { document, notes })
}

pub fn render(document: &Document) -> String {
    let mut value = report::to_json(document);
    let portable: Vec<CaseResult> = document
        .results
        .iter()
        .map(|result| {
            let mut result = result.clone();
            result.stdout_tail = None;
            result.stderr_tail = None;
            // The result cache's bookkeeping (this machine's paths; whether this run was served from
            // it) is no fact to compare against.
            result.build_inputs = None;
            result.cache = None;
            for graph_break in &mut result.graph_breaks {
                if let Some(file) = &graph_break.filename {
                    graph_break.filename = Some(portable_path(file, document.cwd));
                }
            }
            if let Some(error) = &mut result.error
                && let Some(file) = &error.filename
            {
                error.filename = Some(portable_path(file, document.cwd));
            }
            result
        })
        .collect();
    value["results"] = serde_json::to_value(&portable).unwrap_or_default();
    // Tails and build inputs are stripped, not written as null: a baseline stays small and diffable.
    for result in value["results"].as_array_mut().into_iter().flatten() {
        if let Some(map) = result.as_object_mut() {
            map.remove("stdout_tail");
            map.remove("stderr_tail");
            map.remove("build_inputs");
        }
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// Project files relative to the project, library files from their package on: the same on every machine.
fn portable_path(file: &str, cwd: &Path) -> String {
    if let Ok(relative) = Path::new(file).strip_prefix(cwd) {
        return relative.display().to_string();
    }
    match file.rfind("site-packages/") {
        Some(index) => file[index + "site-packages/".len()..].to_owned(),
        None => file.to_owned(),
    }
}

/// Worse is larger. Anything that did not produce a compiled result ranks above a parity failure.
fn status_rank(status: &Status) -> u8 {
    match status {
        Status::Ok => 0,
        Status::ParityFail => 1,
        Status::CompileError => 2,
        _ => 3,
    }
}

fn case_of(result: &CaseResult) -> &str {
    result.case.as_deref().unwrap_or("")
}

fn torch_of(result: &CaseResult) -> &str {
    result
        .torch_version
        .as_deref()
        .or(result.python_executable.as_deref())
        .unwrap_or("")
}

/// `2.11.0+cu130` and `2.11.0+cpu` are the same release: a baseline written on a CUDA dev box still gates CPU CI.
fn release(torch: &str) -> &str {
    torch.split('+').next().unwrap_or(torch)
}

/// Timings are comparable only from the same hardware and the same torch build.
fn same_machine(old: &CaseResult, new: &CaseResult) -> bool {
    let env_field =
        |result: &CaseResult, pick: fn(&super::record::ResultEnvironment) -> &Option<String>| {
            result.environment.as_ref().and_then(|e| pick(e).clone())
        };
    old.device.is_some()
        && old.device == new.device
        && old.torch_version == new.torch_version
        && env_field(old, |e| &e.gpu_name) == env_field(new, |e| &e.gpu_name)
        && env_field(old, |e| &e.platform) == env_field(new, |e| &e.platform)
}

pub struct Comparison {
    pub regressions: Vec<String>,
    /// Comparisons the gate could not make because a value is missing on one side: never a silent pass.
    pub unchecked: Vec<String>,
    /// Things the gate could not check (cases missing from the baseline, a different torch release).
    pub notes: Vec<String>,
}

impl Comparison {
    pub fn empty() -> Self {
        Comparison {
            regressions: Vec::new(),
            unchecked: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// Both values, or a line for `unchecked` saying which side lacks it (None when neither side has one:
/// nothing was promised, nothing is lost).
fn both<T: std::fmt::Display + Copy>(
    who: &str,
    key: &str,
    old: Option<T>,
    new: Option<T>,
    new_status: &Status,
    unchecked: &mut Vec<String>,
) -> Option<(T, T)> {
    match (old, new) {
        (Some(before), Some(after)) => Some((before, after)),
        (Some(before), None) => {
            let why = if new_status.is_ok() {
                String::new()
            } else {
                format!(", the case ended {new_status}")
            };
            unchecked.push(format!(
                "{who}: {key} not compared: missing in this run{why} (baseline {before})"
            ));
            None
        }
        (None, Some(after)) => {
            unchecked.push(format!(
                "{who}: {key} not compared: missing in the baseline (this run {after})"
            ));
            None
        }
        (None, None) => None,
    }
}

pub fn compare(
    baseline: &ReportDocument,
    results: &[CaseResult],
    threshold_percent: f64,
    cwd: &Path,
) -> Comparison {
    let old_results = &baseline.results;
    let mut regressions = Vec::new();
    let mut unchecked = Vec::new();
    let mut notes = Vec::new();
    for new in results {
        let (case, torch) = (case_of(new), torch_of(new));
        let same_case: Vec<&CaseResult> = old_results
            .iter()
            .filter(|old| case_of(old) == case)
            .collect();
        let exact = same_case
            .iter()
            .find(|old| release(torch_of(old)) == release(torch));
        let old = match (exact, same_case.as_slice()) {
            (Some(old), _) => *old,
            // One baseline result for this case on another torch: still compare Dynamo facts, so a torch
            // upgrade that adds a break is caught rather than silently unmatched.
            (None, [only]) => {
                notes.push(format!(
                    "{case}: baseline has torch {}, this run torch {torch}; compared anyway",
                    torch_of(only)
                ));
                only
            }
            (None, []) => {
                notes.push(format!(
                    "{case} · torch {torch}: not in the baseline (new case)"
                ));
                continue;
            }
            (None, _) => {
                notes.push(format!(
                    "{case} · torch {torch}: no baseline result for this torch release"
                ));
                continue;
            }
        };
        let who = format!("{case} · torch {torch}");
        if status_rank(&new.status) > status_rank(&old.status) {
            let why = new
                .error
                .as_ref()
                .and_then(|e| {
                    let message = e.message.as_deref().unwrap_or("");
                    e.error_type
                        .as_deref()
                        .map(|t| format!(" ({t}: {})", message.lines().next().unwrap_or("")))
                })
                .unwrap_or_default();
            regressions.push(format!(
                "{who}: status {} → {}{why}",
                old.status, new.status
            ));
        }
        // A failing run is already a regression (or a failure of its own): the facts it could not
        // produce are not listed again as unchecked.
        let explained = status_rank(&new.status) > status_rank(&old.status);
        let mut missing = Vec::new();
        let status = &new.status;

        let breaks = both(
            &who,
            "graph_break_count",
            old.graph_break_count,
            new.graph_break_count,
            status,
            &mut missing,
        );
        if let Some((before, after)) = breaks
            && after > before
        {
            regressions.push(format!("{who}: graph breaks {before} → {after}"));
        }
        if breaks.is_some() {
            let mut unmatched: Vec<(String, String)> =
                old.graph_breaks.iter().map(|b| break_key(b, cwd)).collect();
            for graph_break in &new.graph_breaks {
                let key = break_key(graph_break, cwd);
                match unmatched.iter().position(|old_key| *old_key == key) {
                    Some(index) => {
                        unmatched.swap_remove(index);
                    }
                    None => {
                        let line = graph_break
                            .line
                            .map(|l| format!(":{l}"))
                            .unwrap_or_default();
                        regressions
                            .push(format!("{who}: new graph break {}{line}: {}", key.0, key.1));
                    }
                }
            }
        }

        if let Some((before, after)) = both(
            &who,
            "recompiles",
            old.recompiles,
            new.recompiles,
            status,
            &mut missing,
        ) && after > before
        {
            regressions.push(format!("{who}: recompiles {before} → {after}"));
        }
        if new.cache_limit_hit && !old.cache_limit_hit {
            regressions.push(format!(
                "{who}: recompile cache limit now hit (falls back to eager)"
            ));
        }
        if let Some((before, after)) = both(
            &who,
            "parity_ok",
            old.parity_ok,
            new.parity_ok,
            status,
            &mut missing,
        ) && before
            && !after
        {
            let diff = new
                .max_abs_diff
                .map(|d| format!(" (max abs diff {d:.3e})"))
                .unwrap_or_default();
            regressions.push(format!("{who}: parity now beyond tolerance{diff}"));
        }
        if same_machine(old, new) {
            if let Some((before, after)) = both(
                &who,
                "compiled_ms",
                old.compiled_ms,
                new.compiled_ms,
                status,
                &mut missing,
            ) && before > 0.0
                && after > before * (1.0 + threshold_percent / 100.0)
            {
                regressions.push(format!(
                    "{who}: compiled {before:.3} → {after:.3} ms/step (+{:.0}%, threshold {threshold_percent}%)",
                    (after / before - 1.0) * 100.0
                ));
            }
        } else if old.compiled_ms.is_some() && new.compiled_ms.is_some() {
            notes.push(format!(
                "{who}: compiled ms/step not compared (baseline measured on another device, GPU or torch build)"
            ));
        }
        if !explained {
            unchecked.extend(missing);
        }
    }
    for old in old_results {
        if !results.iter().any(|new| case_of(new) == case_of(old)) {
            notes.push(format!("{}: in the baseline but not run now", case_of(old)));
        }
    }
    notes.dedup();
    Comparison {
        regressions,
        unchecked,
        notes,
    }
}

fn break_key(graph_break: &GraphBreak, cwd: &Path) -> (String, String) {
    let file = graph_break
        .filename
        .as_deref()
        .map(|f| portable_path(f, cwd))
        .unwrap_or_else(|| "<unknown>".into());
    let reason = graph_break
        .reason
        .as_deref()
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_owned();
    (file, reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(value: Value) -> ReportDocument {
        serde_json::from_value(value).unwrap()
    }

    fn records(values: &[Value]) -> Vec<CaseResult> {
        values
            .iter()
            .map(|v| serde_json::from_value(v.clone()).unwrap())
            .collect()
    }

    fn result(
        breaks: &[(&str, u64, &str)],
        recompiles: u64,
        compiled_ms: f64,
        status: &str,
    ) -> Value {
        json!({"environment": {"platform": "linux"},
            "case": "c.py::case_x", "torch_version": "2.11.0", "device": "cpu", "status": status,
            "graph_break_count": breaks.len(),
            "graph_breaks": breaks.iter().map(|(f, l, r)| json!({"filename": f, "line": l, "reason": r})).collect::<Vec<_>>(),
            "recompiles": recompiles, "compiled_ms": compiled_ms, "parity_ok": true,
        })
    }

    #[test]
    fn unchanged_and_shifted_lines_are_not_regressions() {
        let cwd = Path::new("/p");
        let old = json!({"results": [result(&[("c.py", 10, "item()")], 1, 2.0, "ok")]});
        let new = [result(&[("/p/c.py", 14, "item()")], 1, 2.1, "ok")];
        assert!(
            compare(&doc(old), &records(&new), 10.0, cwd)
                .regressions
                .is_empty()
        );
    }

    #[test]
    fn each_kind_of_regression_is_reported() {
        let cwd = Path::new("/p");
        let old = json!({"results": [result(&[("c.py", 10, "item()")], 0, 2.0, "ok")]});
        let new = [result(
            &[("/p/c.py", 10, "item()"), ("/p/c.py", 20, "item()")],
            2,
            3.0,
            "compile_error",
        )];
        let found = compare(&doc(old), &records(&new), 10.0, cwd).regressions;
        assert_eq!(found.len(), 5, "{found:#?}");
        assert!(found[0].contains("status ok → compile_error"));
        assert!(found[1].contains("graph breaks 1 → 2"));
        assert!(found[2].contains("new graph break c.py:20: item()"));
        assert!(found[3].contains("recompiles 0 → 2"));
        assert!(found[4].contains("compiled 2.000 → 3.000 ms/step (+50%"));
    }

    #[test]
    fn torch_builds_and_upgrades_still_gate() {
        let cwd = Path::new("/p");
        let mut old = result(&[], 0, 1.0, "ok");
        old["torch_version"] = json!("2.11.0+cu130");
        let baseline = json!({"results": [old]});
        let mut cpu_build = result(&[("/p/c.py", 3, "item()")], 0, 9.0, "ok");
        cpu_build["torch_version"] = json!("2.11.0+cpu");
        let found = compare(
            &doc(baseline.clone()),
            &records(&[cpu_build.clone()]),
            10.0,
            cwd,
        );
        assert_eq!(found.regressions.len(), 2, "{:?}", found.regressions);
        assert_eq!(found.notes.len(), 1, "{:?}", found.notes);
        assert!(
            found.notes[0].contains("compiled ms/step not compared"),
            "a skipped timing comparison is said, not silent"
        );
        assert!(
            !found.regressions.iter().any(|r| r.contains("ms/step")),
            "timings of another torch build are not compared"
        );

        let mut upgraded = cpu_build;
        upgraded["torch_version"] = json!("2.12.0");
        let found = compare(&doc(baseline.clone()), &records(&[upgraded]), 10.0, cwd);
        assert_eq!(found.regressions.len(), 2);
        assert!(found.notes[0].contains("baseline has torch 2.11.0+cu130, this run torch 2.12.0"));

        let mut other_case = result(&[], 0, 1.0, "ok");
        other_case["case"] = json!("c.py::case_new");
        let found = compare(&doc(baseline), &records(&[other_case]), 10.0, cwd);
        assert!(found.regressions.is_empty());
        assert_eq!(found.notes.len(), 2, "{:?}", found.notes);
        assert!(found.notes[0].contains("not in the baseline"));
        assert!(found.notes[1].contains("c.py::case_x: in the baseline but not run now"));
    }

    #[test]
    fn timings_from_another_device_are_not_compared() {
        let old = json!({"results": [result(&[], 0, 1.0, "ok")]});
        let mut new = result(&[], 0, 5.0, "ok");
        new["device"] = json!("cuda");
        assert!(
            compare(&doc(old), &records(&[new]), 10.0, Path::new("/p"))
                .regressions
                .is_empty()
        );
    }

    #[test]
    fn a_value_missing_on_one_side_is_unchecked_not_passed() {
        let cwd = Path::new("/p");
        let old = json!({"results": [result(&[], 1, 2.0, "ok")]});
        // This torch could not count recompiles (None) and the run was --no-measure (no parity, no ms).
        let mut new = result(&[], 1, 2.0, "ok");
        new["recompiles"] = Value::Null;
        new["parity_ok"] = Value::Null;
        new["compiled_ms"] = Value::Null;
        let found = compare(&doc(old.clone()), &records(&[new]), 10.0, cwd);
        assert!(found.regressions.is_empty(), "{:?}", found.regressions);
        assert_eq!(found.unchecked.len(), 3, "{:?}", found.unchecked);
        assert!(
            found.unchecked[0]
                .contains("recompiles not compared: missing in this run (baseline 1)")
        );
        assert!(found.unchecked[1].contains("parity_ok not compared"));
        assert!(found.unchecked[2].contains("compiled_ms not compared"));

        // The other way round: an old baseline without the value.
        let mut old_without = result(&[], 0, 2.0, "ok");
        old_without["graph_break_count"] = Value::Null;
        let found = compare(
            &doc(json!({"results": [old_without]})),
            &records(&[result(&[("/p/c.py", 3, "item()")], 0, 2.0, "ok")]),
            10.0,
            cwd,
        );
        assert_eq!(found.unchecked.len(), 1, "{:?}", found.unchecked);
        assert!(
            found.unchecked[0].contains("graph_break_count not compared: missing in the baseline")
        );

        // A run that failed outright is a status regression; its missing facts are not listed again.
        let failed = result(&[], 0, 2.0, "compile_error");
        let mut failed = failed;
        failed["compiled_ms"] = Value::Null;
        failed["recompiles"] = Value::Null;
        let found = compare(&doc(old), &records(&[failed]), 10.0, cwd);
        assert_eq!(found.regressions.len(), 1, "{:?}", found.regressions);
        assert!(found.unchecked.is_empty(), "{:?}", found.unchecked);
    }
}
