//! `scan --write-baseline FILE` / `scan --baseline FILE`: adopt graphbreak on a large codebase by
//! recording today's findings once and failing only on new ones.
//!
//! A finding is identified by its fingerprint: rule code, file (relative to the baseline file's
//! directory, `/`-separated), the whitespace-normalized text of the source lines it spans, and an
//! occurrence index among findings with that same code, file and text (in file order). Line numbers
//! are deliberately not part of it, so edits elsewhere in the file that shift lines, re-indenting
//! the statement, or moving the file's other code around keep the finding baselined; editing the
//! flagged statement itself makes it new. Rewriting the baseline records only current findings,
//! so a fixed finding drops out of it.

use crate::diagnostics::Diagnostic;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

const FORMAT_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fingerprint {
    pub code: String,
    pub path: String,
    pub text: String,
    pub occurrence: u32,
}

/// One baseline entry: the fingerprint plus, for people reading the file in review, where it was
/// and what it said when recorded (not used for matching).
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    #[serde(flatten)]
    fingerprint: Fingerprint,
    #[serde(default)]
    line: u32,
    #[serde(default)]
    message: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFile {
    version: u32,
    #[serde(default)]
    tool: String,
    findings: Vec<Entry>,
}

/// The fingerprints of `diagnostics` (same order), paths taken relative to `base_dir`.
pub fn fingerprints(diagnostics: &[Diagnostic], base_dir: &Path) -> Vec<Fingerprint> {
    let mut sources: HashMap<&Path, Option<String>> = HashMap::new();
    let mut seen: HashMap<(String, String, String), u32> = HashMap::new();
    // Occurrence indices follow file order, whatever order the caller passes.
    let mut order: Vec<usize> = (0..diagnostics.len()).collect();
    order.sort_by(|&a, &b| diagnostics[a].sort_key().cmp(&diagnostics[b].sort_key()));
    let mut result = vec![None; diagnostics.len()];
    for index in order {
        let d = &diagnostics[index];
        let source = sources
            .entry(d.path.as_path())
            .or_insert_with(|| crate::source::read_source(&d.path).ok());
        let text = match d.cell {
            // A notebook's rows count within a code cell: read them from the joined cells.
            Some(cell) => source
                .as_deref()
                .and_then(|s| crate::scan::notebook::parse(s).ok())
                .map(|notebook| {
                    let start = notebook
                        .cell_starts
                        .get((cell as usize).saturating_sub(1))
                        .copied()
                        .unwrap_or(1);
                    statement_text(
                        &notebook.source,
                        start + d.location.row - 1,
                        start + d.end_location.row - 1,
                    )
                })
                .unwrap_or_default(),
            None => source
                .as_deref()
                .map(|s| statement_text(s, d.location.row, d.end_location.row))
                .unwrap_or_default(),
        };
        let path = relative_path(&d.path, base_dir);
        let key = (d.code.to_owned(), path, text);
        let counter = seen.entry(key.clone()).or_insert(0);
        result[index] = Some(Fingerprint {
            code: key.0,
            path: key.1,
            text: key.2,
            occurrence: *counter,
        });
        *counter += 1;
    }
    result.into_iter().map(Option::unwrap).collect()
}

/// The source lines `first..=last` (1-based) joined, every whitespace run collapsed to one space.
fn statement_text(source: &str, first: u32, last: u32) -> String {
    let last = last.max(first);
    let lines = source
        .lines()
        .skip(first.saturating_sub(1) as usize)
        .take((last - first + 1) as usize);
    let mut text = String::new();
    for word in lines.flat_map(str::split_whitespace) {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(word);
    }
    text
}

/// `path` relative to `base` with `/` separators (`..` where it lies outside), else as given.
fn relative_path(path: &Path, base: &Path) -> String {
    let path = crate::scan::discover::absolute(path);
    let base = crate::scan::discover::absolute(base);
    let path_parts: Vec<Component> = path.components().collect();
    let base_parts: Vec<Component> = base.components().collect();
    let common = path_parts
        .iter()
        .zip(&base_parts)
        .take_while(|(a, b)| a == b)
        .count();
    // Different roots (another drive on Windows): nothing relative to say.
    if common == 0 {
        return path.to_string_lossy().replace('\\', "/");
    }
    let mut relative = PathBuf::new();
    for _ in common..base_parts.len() {
        relative.push("..");
    }
    for part in &path_parts[common..] {
        relative.push(part);
    }
    relative.to_string_lossy().replace('\\', "/")
}

fn base_dir(baseline: &Path) -> PathBuf {
    let absolute = crate::scan::discover::absolute(baseline);
    absolute
        .parent()
        .map_or(absolute.clone(), Path::to_path_buf)
}

/// Records every current finding in `file` (sorted, so the file diffs cleanly in review).
pub fn write(file: &Path, diagnostics: &[Diagnostic]) -> Result<usize, String> {
    let prints = fingerprints(diagnostics, &base_dir(file));
    let mut findings: Vec<Entry> = prints
        .into_iter()
        .zip(diagnostics)
        .map(|(fingerprint, d)| Entry {
            fingerprint,
            line: d.location.row,
            message: d.message.clone(),
        })
        .collect();
    findings.sort_by(|a, b| a.fingerprint.cmp(&b.fingerprint));
    let count = findings.len();
    let document = BaselineFile {
        version: FORMAT_VERSION,
        tool: format!("graphbreak scan {}", env!("CARGO_PKG_VERSION")),
        findings,
    };
    let mut text = serde_json::to_string_pretty(&document).map_err(|e| e.to_string())?;
    text.push('\n');
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(file, text).map_err(|e| format!("{}: cannot write: {e}", file.display()))?;
    Ok(count)
}

/// Drops the findings recorded in the baseline `file`; returns how many were dropped.
pub fn filter(file: &Path, diagnostics: &mut Vec<Diagnostic>) -> Result<usize, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("{}: cannot read baseline: {e}", file.display()))?;
    let document: BaselineFile = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not a scan baseline written by `graphbreak scan --write-baseline`: {e}",
            file.display()
        )
    })?;
    if document.version != FORMAT_VERSION {
        return Err(format!(
            "{}: baseline format version {} is not supported (expected {FORMAT_VERSION}); rewrite it with --write-baseline",
            file.display(),
            document.version
        ));
    }
    let known: std::collections::HashSet<Fingerprint> = document
        .findings
        .into_iter()
        .map(|e| e.fingerprint)
        .collect();
    let prints = fingerprints(diagnostics, &base_dir(file));
    let before = diagnostics.len();
    let mut prints = prints.into_iter();
    diagnostics.retain(|_| !known.contains(&prints.next().expect("one fingerprint each")));
    Ok(before - diagnostics.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_text_collapses_whitespace_across_lines() {
        let source = "a = 1\n    if  x.any() :\n\tpass\nb\n";
        assert_eq!(statement_text(source, 2, 2), "if x.any() :");
        assert_eq!(statement_text(source, 2, 3), "if x.any() : pass");
        assert_eq!(statement_text(source, 9, 9), "");
    }

    #[test]
    fn relative_path_walks_up_when_outside_the_base() {
        assert_eq!(
            relative_path(Path::new("/p/pkg/m.py"), Path::new("/p")),
            "pkg/m.py"
        );
        assert_eq!(
            relative_path(Path::new("/p/pkg/m.py"), Path::new("/p/ci")),
            "../pkg/m.py"
        );
    }
}
