//! The trace map and runtime events of a check result, as the harness records them (`traced`,
//! `runtime_events`; docs/check-protocol.md), and reading them back from a check report for
//! `graphbreak scan --traced`.
//!
//! `traced` comes from Dynamo's `trace_source` log artifact (`TRACE starts_line FILE:LINE in FN`, the same
//! format on torch 2.2 through 2.11): every source line Dynamo symbolically executed, torch's own files and
//! the standard library left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::record::CaseResult;
pub use super::record_parts::{EventKind, RuntimeEvent};

/// File → lines Dynamo traced in it: the most precise compiled region there is.
pub type TracedRegion = BTreeMap<PathBuf, BTreeSet<u32>>;

/// Merges repeats (same kind, file, line and reason) into one event, summing counts; first-seen order.
pub fn merge_events(events: impl IntoIterator<Item = RuntimeEvent>) -> Vec<RuntimeEvent> {
    let mut merged: Vec<RuntimeEvent> = Vec::new();
    for event in events {
        match merged
            .iter_mut()
            .find(|seen| seen.merge_key() == event.merge_key())
        {
            Some(seen) => seen.count += event.count,
            None => merged.push(event),
        }
    }
    merged
}

/// The trace map of one result; None when the harness had no trace_source artifact (or an old harness).
pub fn traced_of(result: &CaseResult) -> Option<TracedRegion> {
    let map = result.traced.as_ref()?;
    Some(
        map.iter()
            .map(|(file, lines)| (PathBuf::from(file), lines.iter().copied().collect()))
            .collect(),
    )
}

/// The runtime events of one result, merged.
pub fn events_of(result: &CaseResult) -> Vec<RuntimeEvent> {
    merge_events(result.runtime_events.iter().cloned())
}

/// A check report's trace maps and events, every result together (`scan --traced`).
pub struct ReportTrace {
    pub region: TracedRegion,
    pub events: Vec<RuntimeEvent>,
    pub torch_versions: BTreeSet<String>,
}

impl ReportTrace {
    /// The traced files that exist on this machine (the default paths of `scan --traced`).
    pub fn existing_files(&self) -> Vec<PathBuf> {
        self.region
            .iter()
            .filter(|(path, lines)| !lines.is_empty() && path.is_file())
            .map(|(path, _)| path.clone())
            .collect()
    }
}

/// The results of a `graphbreak check --output-format json` report (`{"results": [...]}`) or of the JSONL
/// stream (one result per line).
pub fn load_results(path: &Path) -> Result<Vec<CaseResult>, String> {
    let values = load_values(path)?;
    values
        .into_iter()
        .enumerate()
        .map(|(index, value)| {
            serde_json::from_value(value).map_err(|e| {
                format!(
                    "{}: result {} is not a graphbreak check result: {e}",
                    path.display(),
                    index + 1
                )
            })
        })
        .collect()
}

fn load_values(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    match serde_json::from_str::<Value>(&text) {
        Ok(document) => match document.get("results").and_then(Value::as_array) {
            Some(results) => Ok(results.clone()),
            None if document.get("case").is_some() => Ok(vec![document]),
            None => Err(format!(
                "{}: not a graphbreak check report (no `results` array)",
                path.display()
            )),
        },
        Err(whole_error) => {
            let mut results = Vec::new();
            for (index, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let value: Value = serde_json::from_str(line).map_err(|_| {
                    format!(
                        "{}: not a graphbreak check report (JSON: {whole_error}; line {} is not a JSONL result either)",
                        path.display(),
                        index + 1
                    )
                })?;
                results.push(value);
            }
            Ok(results)
        }
    }
}

/// A check report's trace maps and events, every result together (`scan --traced`).
pub fn load_report(path: &Path) -> Result<ReportTrace, String> {
    let results = load_results(path)?;
    let mut region = TracedRegion::new();
    let mut any_trace = false;
    let mut torch_versions = BTreeSet::new();
    let mut events = Vec::new();
    for result in &results {
        if let Some(traced) = traced_of(result) {
            any_trace = true;
            for (file, lines) in traced {
                region.entry(file).or_default().extend(lines);
            }
        }
        if let Some(version) = &result.torch_version {
            torch_versions.insert(version.clone());
        }
        events.extend(events_of(result));
    }
    if !any_trace {
        return Err(format!(
            "{}: no result has a trace map (`traced`): re-run `graphbreak check` with this graphbreak on a torch that has the trace_source log (2.2 or newer)",
            path.display()
        ));
    }
    Ok(ReportTrace {
        region,
        events: merge_events(events),
        torch_versions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(kind: EventKind, line: u32, reason: &str, count: u32) -> RuntimeEvent {
        RuntimeEvent {
            kind,
            filename: Some("/p/m.py".into()),
            line: Some(line),
            gb_code: None,
            reason: Some(reason.into()),
            count,
        }
    }

    #[test]
    fn repeats_at_one_site_merge_with_their_counts() {
        let merged = merge_events([
            event(EventKind::Break, 7, "Tensor.item", 1),
            event(EventKind::Break, 7, "Tensor.item", 2),
            event(EventKind::Break, 7, "other reason", 1),
            event(EventKind::Recompile, 9, "self.n == 0", 1),
            event(EventKind::Recompile, 9, "self.n == 1", 1),
        ]);
        let summary: Vec<(EventKind, u32, u32)> = merged
            .iter()
            .map(|e| (e.kind, e.line.unwrap(), e.count))
            .collect();
        assert_eq!(
            summary,
            [
                (EventKind::Break, 7, 3),
                (EventKind::Break, 7, 1),
                (EventKind::Recompile, 9, 2)
            ]
        );
    }

    #[test]
    fn traced_map_and_events_read_from_a_result() {
        let record = |value: Value| serde_json::from_value::<CaseResult>(value).unwrap();
        let result = record(json!({
            "traced": {"/p/m.py": [3, 1, 2], "/p/n.py": []},
            "runtime_events": [{"kind": "crash", "filename": "/p/m.py", "line": 2, "gb_code": null,
                                "reason": "TypeError: x", "count": 1}],
        }));
        let region = traced_of(&result).unwrap();
        assert_eq!(
            region[Path::new("/p/m.py")]
                .iter()
                .copied()
                .collect::<Vec<_>>(),
            [1, 2, 3]
        );
        let events = events_of(&result);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].kind, EventKind::Crash);
        assert!(traced_of(&record(json!({"traced": null}))).is_none());
    }
}
