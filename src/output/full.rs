//! `--output-format full`: each finding's source lines under its header line, with a caret run under
//! the flagged range and the fix's title, laid out like ruff's `full` format.

use crate::diagnostics::Diagnostic;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

/// Lines of context shown above and below the flagged lines (ruff shows two).
const CONTEXT: usize = 2;
/// A finding that spans more lines than this shows only its first ones.
const MAX_FLAGGED_LINES: usize = 8;

/// Each file's lines, read once per run (None when it cannot be read: the header alone is shown).
#[derive(Default)]
pub struct Sources {
    files: HashMap<PathBuf, Option<Vec<String>>>,
}

impl Sources {
    fn lines(&mut self, path: &std::path::Path) -> Option<&[String]> {
        self.files
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                crate::source::read_source(path)
                    .ok()
                    .map(|text| text.lines().map(str::to_owned).collect())
            })
            .as_deref()
    }
}

pub fn write_snippet(
    out: &mut dyn Write,
    d: &Diagnostic,
    sources: &mut Sources,
) -> std::io::Result<()> {
    let Some(lines) = sources.lines(&d.path) else {
        return Ok(());
    };
    let first = d.location.row as usize;
    if first == 0 || first > lines.len() {
        return Ok(());
    }
    let last = (d.end_location.row as usize)
        .clamp(first, lines.len())
        .min(first + MAX_FLAGGED_LINES - 1);
    let mut start = first.saturating_sub(CONTEXT).max(1);
    let mut end = (last + CONTEXT).min(lines.len());
    // Blank context at the edges says nothing.
    while start < first && lines[start - 1].trim().is_empty() {
        start += 1;
    }
    while end > last && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    let gutter = end.to_string().len();
    writeln!(out, "{:gutter$} |", "")?;
    for row in start..=end {
        let line = &lines[row - 1];
        writeln!(out, "{row:>gutter$} | {line}")?;
        if row == first {
            let column = d.location.column as usize;
            let end_column = if d.end_location.row as usize == first {
                d.end_location.column as usize
            } else {
                line.chars().count() + 1
            };
            // Keep tabs where the line has them, so the caret lands under the same character.
            let pad: String = line
                .chars()
                .take(column.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let width = end_column.saturating_sub(column).max(1);
            writeln!(
                out,
                "{:gutter$} | {pad}{} {}",
                "",
                "^".repeat(width),
                d.code
            )?;
        }
    }
    writeln!(out, "{:gutter$} |", "")?;
    if let Some(fix) = &d.fix {
        writeln!(out, "{:gutter$} = help: {}", "", fix.message)?;
    }
    if !d.reached_from.is_empty() {
        let chain = super::reach::chain_text(&d.reached_from);
        writeln!(out, "{:gutter$} = via {chain}", "")?;
    }
    writeln!(out)
}
