//! Unit-test support: scan one module written from a string, as the semantic model's tests do.

use crate::diagnostics::Diagnostic;
use crate::scan::{ScanOptions, run};

/// The findings of `header` + `source` written as one `model.py` and scanned with default
/// options (`no_config` as given), each with its row counted from the first line of `source`.
pub(crate) fn scan_rows(header: &str, source: &str, no_config: bool) -> Vec<(u32, Diagnostic)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.py");
    std::fs::write(&path, format!("{header}{source}")).unwrap();
    let result = run(&ScanOptions {
        paths: vec![path],
        no_config,
        ..ScanOptions::default()
    })
    .unwrap();
    let offset = header.lines().count() as u32;
    result
        .diagnostics
        .into_iter()
        .map(|d| (d.location.row - offset, d))
        .collect()
}
