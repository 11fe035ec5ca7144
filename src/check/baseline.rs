//! `--write-baseline` / `--baseline`: the CI gate. A baseline is the JSON report of a run (output tails
//! stripped, paths made relative so it can be committed and compared on another machine).
//!
//! Results are matched by (case node id, torch version). A regression is: a worse status, more graph breaks, a
//! break whose (file, reason) the baseline does not have (matched as a multiset and ignoring the line number,
//! so an unrelated edit that shifts lines does not fail CI — the line is still printed), more recompiles, the
//! recompile limit newly hit, parity newly failing, or compiled ms/step slower than the threshold (only when
//! the device and torch version match, since timings from different hardware are not comparable).
//! Cases present on one side only are not regressions.

use std::path::Path;

use serde_json::Value;

use super::report::{self, Document};

pub fn load(path: &Path) -> Result<Value, String> {
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
    Ok(value)
}

pub fn render(document: &Document) -> String {
    let mut value = report::to_json(document);
    for result in value["results"].as_array_mut().into_iter().flatten() {
        if let Some(map) = result.as_object_mut() {
            map.remove("stdout_tail");
            map.remove("stderr_tail");
        }
        for graph_break in result["graph_breaks"].as_array_mut().into_iter().flatten() {
            if let Some(file) = graph_break["filename"].as_str() {
                graph_break["filename"] = Value::from(portable_path(file, document.cwd));
            }
        }
        if let Some(file) = result["error"]["filename"].as_str() {
            result["error"]["filename"] = Value::from(portable_path(file, document.cwd));
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
fn status_rank(status: &str) -> u8 {
    match status {
        "ok" => 0,
        "parity_fail" => 1,
        "compile_error" => 2,
        _ => 3,
    }
}

fn case_of(result: &Value) -> &str {
    result["case"].as_str().unwrap_or("")
}

fn torch_of(result: &Value) -> &str {
    result["torch_version"]
        .as_str()
        .or(result["python_executable"].as_str())
        .unwrap_or("")
}

/// `2.11.0+cu130` and `2.11.0+cpu` are the same release: a baseline written on a CUDA dev box still gates CPU CI.
fn release(torch: &str) -> &str {
    torch.split('+').next().unwrap_or(torch)
}

/// Timings are comparable only from the same hardware and the same torch build.
fn same_machine(old: &Value, new: &Value) -> bool {
    let same = |key: &str| old[key] == new[key];
    let same_env = |key: &str| old["environment"][key] == new["environment"][key];
    old["device"].is_string()
        && same("device")
        && same("torch_version")
        && same_env("gpu_name")
        && same_env("platform")
}

pub struct Comparison {
    pub regressions: Vec<String>,
    /// Things the gate could not check (cases missing from the baseline, a different torch release).
    pub notes: Vec<String>,
}

pub fn compare(
    baseline: &Value,
    results: &[Value],
    threshold_percent: f64,
    cwd: &Path,
) -> Comparison {
    let empty = Vec::new();
    let old_results = baseline["results"].as_array().unwrap_or(&empty);
    let mut regressions = Vec::new();
    let mut notes = Vec::new();
    for new in results {
        let (case, torch) = (case_of(new), torch_of(new));
        let same_case: Vec<&Value> = old_results
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
        let old_status = old["status"].as_str().unwrap_or("?");
        let new_status = new["status"].as_str().unwrap_or("?");
        if status_rank(new_status) > status_rank(old_status) {
            let why = new["error"]["type"]
                .as_str()
                .map(|t| {
                    let message = new["error"]["message"].as_str().unwrap_or("");
                    format!(" ({t}: {})", message.lines().next().unwrap_or(""))
                })
                .unwrap_or_default();
            regressions.push(format!("{who}: status {old_status} → {new_status}{why}"));
        }

        let old_breaks = old["graph_break_count"].as_u64();
        let new_breaks = new["graph_break_count"].as_u64();
        if let (Some(before), Some(after)) = (old_breaks, new_breaks)
            && after > before
        {
            regressions.push(format!("{who}: graph breaks {before} → {after}"));
        }
        if old_breaks.is_some() {
            let mut unmatched: Vec<(String, String)> = old["graph_breaks"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| break_key(b, cwd))
                .collect();
            for graph_break in new["graph_breaks"].as_array().into_iter().flatten() {
                let key = break_key(graph_break, cwd);
                match unmatched.iter().position(|old_key| *old_key == key) {
                    Some(index) => {
                        unmatched.swap_remove(index);
                    }
                    None => {
                        let line = graph_break["line"]
                            .as_u64()
                            .map(|l| format!(":{l}"))
                            .unwrap_or_default();
                        regressions
                            .push(format!("{who}: new graph break {}{line}: {}", key.0, key.1));
                    }
                }
            }
        }

        if let (Some(before), Some(after)) =
            (old["recompiles"].as_u64(), new["recompiles"].as_u64())
            && after > before
        {
            regressions.push(format!("{who}: recompiles {before} → {after}"));
        }
        if new["cache_limit_hit"] == true && old["cache_limit_hit"] != true {
            regressions.push(format!(
                "{who}: recompile cache limit now hit (falls back to eager)"
            ));
        }
        if new["parity_ok"] == false && old["parity_ok"] != false {
            let diff = new["max_abs_diff"]
                .as_f64()
                .map(|d| format!(" (max abs diff {d:.3e})"))
                .unwrap_or_default();
            regressions.push(format!("{who}: parity now beyond tolerance{diff}"));
        }
        if let (true, Some(before), Some(after)) = (
            same_machine(old, new),
            old["compiled_ms"].as_f64(),
            new["compiled_ms"].as_f64(),
        ) && before > 0.0
            && after > before * (1.0 + threshold_percent / 100.0)
        {
            regressions.push(format!(
                "{who}: compiled {before:.3} → {after:.3} ms/step (+{:.0}%, threshold {threshold_percent}%)",
                (after / before - 1.0) * 100.0
            ));
        }
    }
    for old in old_results {
        if !results.iter().any(|new| case_of(new) == case_of(old)) {
            notes.push(format!("{}: in the baseline but not run now", case_of(old)));
        }
    }
    notes.dedup();
    Comparison { regressions, notes }
}

fn break_key(graph_break: &Value, cwd: &Path) -> (String, String) {
    let file = graph_break["filename"]
        .as_str()
        .map(|f| portable_path(f, cwd))
        .unwrap_or_else(|| "<unknown>".into());
    let reason = graph_break["reason"]
        .as_str()
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

    fn result(
        breaks: &[(&str, u64, &str)],
        recompiles: u64,
        compiled_ms: f64,
        status: &str,
    ) -> Value {
        json!({
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
        assert!(compare(&old, &new, 10.0, cwd).regressions.is_empty());
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
        let found = compare(&old, &new, 10.0, cwd).regressions;
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
        let found = compare(&baseline, &[cpu_build.clone()], 10.0, cwd);
        assert_eq!(found.regressions.len(), 2, "{:?}", found.regressions);
        assert!(found.notes.is_empty(), "{:?}", found.notes);
        assert!(
            !found.regressions.iter().any(|r| r.contains("ms/step")),
            "timings of another torch build are not compared"
        );

        let mut upgraded = cpu_build;
        upgraded["torch_version"] = json!("2.12.0");
        let found = compare(&baseline, &[upgraded], 10.0, cwd);
        assert_eq!(found.regressions.len(), 2);
        assert!(found.notes[0].contains("baseline has torch 2.11.0+cu130, this run torch 2.12.0"));

        let mut other_case = result(&[], 0, 1.0, "ok");
        other_case["case"] = json!("c.py::case_new");
        let found = compare(&baseline, &[other_case], 10.0, cwd);
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
            compare(&old, &[new], 10.0, Path::new("/p"))
                .regressions
                .is_empty()
        );
    }
}
