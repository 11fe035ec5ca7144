//! Jupyter notebooks as Python source, as ruff reads them: the code cells joined in order (markdown
//! and raw cells left out), IPython magics (`%time x`, `!pip ...`, `obj?`, a `%%bash` cell) replaced
//! by `pass` so the rest still parses, and the first row of each code cell kept so a finding can be
//! shown as `cell N:row:col`.

/// A notebook's code as one Python module.
pub struct Notebook {
    pub source: String,
    /// 1-based row (in `source`) where each code cell starts, in cell order.
    pub cell_starts: Vec<u32>,
}

pub fn parse(text: &str) -> Result<Notebook, String> {
    let document: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a notebook (invalid JSON: {e})"))?;
    let cells = document
        .get("cells")
        .and_then(serde_json::Value::as_array)
        .ok_or("not a notebook in nbformat 4 (no `cells` list)")?;
    let mut source = String::new();
    let mut cell_starts = Vec::new();
    let mut row = 1u32;
    for cell in cells {
        if cell.get("cell_type").and_then(serde_json::Value::as_str) != Some("code") {
            continue;
        }
        let text = match cell.get("source") {
            Some(serde_json::Value::String(text)) => text.clone(),
            Some(serde_json::Value::Array(lines)) => lines
                .iter()
                .filter_map(serde_json::Value::as_str)
                .collect::<String>(),
            _ => String::new(),
        };
        cell_starts.push(row);
        let cell_magic = text.trim_start().starts_with("%%");
        for line in text.lines() {
            if cell_magic {
                source.push('\n');
            } else if is_magic(line) {
                let indent = line.len() - line.trim_start().len();
                source.push_str(&line[..indent]);
                source.push_str("pass\n");
            } else {
                source.push_str(line);
                source.push('\n');
            }
            row += 1;
        }
    }
    Ok(Notebook {
        source,
        cell_starts,
    })
}

pub fn is_notebook(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
}

/// An IPython line magic, shell escape or help request: not Python.
fn is_magic(line: &str) -> bool {
    let code = line.trim();
    code.starts_with('%')
        || code.starts_with('!')
        || (code.ends_with('?') && !code.starts_with('#') && !code.contains(['"', '\'']))
}

/// The code cell (1-based) holding a row of the joined source, and the row within that cell.
pub fn cell_of(cell_starts: &[u32], row: u32) -> (u32, u32) {
    let index = cell_starts.partition_point(|&start| start <= row).max(1) - 1;
    let start = cell_starts.get(index).copied().unwrap_or(1);
    (index as u32 + 1, row.saturating_sub(start) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_cells_join_with_magics_blanked_and_rows_map_back_to_cells() {
        let text = r##"{"nbformat": 4, "cells": [
            {"cell_type": "markdown", "source": ["# Title\n"]},
            {"cell_type": "code", "source": ["import torch\n", "%matplotlib inline\n", "x = torch.ones(2)\n"]},
            {"cell_type": "code", "source": "%%bash\necho hi\n"},
            {"cell_type": "code", "source": ["if x.sum():\n", "    !ls\n", "    y = 1"]}
        ]}"##;
        let notebook = parse(text).unwrap();
        assert_eq!(
            notebook.source,
            "import torch\npass\nx = torch.ones(2)\n\n\nif x.sum():\n    pass\n    y = 1\n"
        );
        assert_eq!(notebook.cell_starts, vec![1, 4, 6]);
        assert_eq!(cell_of(&notebook.cell_starts, 3), (1, 3));
        assert_eq!(cell_of(&notebook.cell_starts, 6), (3, 1));
        assert_eq!(cell_of(&notebook.cell_starts, 8), (3, 3));
        assert!(parse("{\"worksheets\": []}").is_err());
        assert!(parse("print(1)").is_err());
    }
}
