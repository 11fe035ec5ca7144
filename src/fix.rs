//! `--fix` and `--diff`: apply the rules' edits to the files (or show them as a unified diff).

use crate::diagnostics::Diagnostic;
use crate::source::{Location, read_source};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::PathBuf;

/// Applies (or, with `diff_only`, prints) every fix; returns the (file, location) of the findings fixed.
pub fn apply(
    diagnostics: &[Diagnostic],
    diff_only: bool,
    out: &mut dyn Write,
) -> Result<HashSet<(PathBuf, Location)>, String> {
    let mut by_file: BTreeMap<&PathBuf, Vec<&Diagnostic>> = BTreeMap::new();
    for d in diagnostics.iter().filter(|d| d.fix.is_some()) {
        by_file.entry(&d.path).or_default().push(d);
    }
    let mut fixed = HashSet::new();
    for (path, findings) in by_file {
        let original = read_source(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut edits: Vec<(&crate::diagnostics::Edit, &Diagnostic)> = findings
            .iter()
            .flat_map(|d| d.fix.as_ref().unwrap().edits.iter().map(move |e| (e, *d)))
            .collect();
        edits.sort_by_key(|(e, _)| (e.start, e.end));
        let mut result = String::with_capacity(original.len() + 64);
        let mut cursor = 0usize;
        for (edit, diagnostic) in edits {
            let (start, end) = (edit.start as usize, edit.end as usize);
            if start < cursor || end > original.len() {
                continue; // overlapping with an earlier edit: leave it for the next run
            }
            result.push_str(&original[cursor..start]);
            result.push_str(&edit.content);
            cursor = end;
            fixed.insert((diagnostic.path.clone(), diagnostic.location));
        }
        result.push_str(&original[cursor..]);
        if diff_only {
            // Relative to the current directory, as ruff's headers are (`patch -p0` applies them).
            let name = crate::output::display_path(path);
            let diff = similar::TextDiff::from_lines(&original, &result);
            write!(out, "{}", diff.unified_diff().header(&name, &name))
                .map_err(|e| e.to_string())?;
        } else {
            std::fs::write(path, result).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(fixed)
}
