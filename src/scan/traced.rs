//! `scan` with a region measured by Dynamo instead of inferred: the trace map of a check report
//! (`graphbreak scan --traced REPORT.json`, and check's cross-check). The lines Dynamo traced are the
//! region, exactly: a finding is kept when its span touches a traced line, whatever the scanner's own
//! roots (forward, torch.compile targets, callees) would have said.

use crate::semantic::summary::{Candidate, FileSummary};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Absolute file → the line numbers Dynamo traced in it.
pub type TracedLines = BTreeMap<PathBuf, BTreeSet<u32>>;

/// Does the span `first..=last` (rows) touch a traced line of `path`?
pub fn touches(traced: &TracedLines, path: &std::path::Path, first: u32, last: u32) -> bool {
    traced
        .get(path)
        .is_some_and(|lines| lines.range(first..=last.max(first)).next().is_some())
}

/// Every candidate of a file, both scopes, that lies on a traced line: the region decides, not the
/// project's inferred roots (so no linking, and no eager-only guard evaluation: Dynamo really ran it).
pub fn candidates<'a>(summary: &'a FileSummary, traced: &TracedLines) -> Vec<&'a Candidate> {
    summary
        .file_diagnostics
        .iter()
        .chain(summary.candidates.iter())
        .filter(|c| touches(traced, &summary.path, c.location.row, c.end_location.row))
        .collect()
}
