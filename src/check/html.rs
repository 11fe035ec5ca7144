//! `check --output-format html` (and `report merge --output-format html`): one self-contained page for people —
//! inline CSS, inline SVG bars and a few lines of inline script; no network, no external asset, so it can be
//! uploaded as a CI artifact and opened anywhere.
//!
//! Sections: a case × torch-version status grid, the per-case table with eager vs compiled ms bars, then every
//! graph break and error with its source line, read from the file when the report is written (a file that is
//! gone or changed is said so, never guessed). Every text that comes from a case, a path or a source line is
//! HTML-escaped.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::record::{CaseResult, Status};
use super::report::{self, Document};

const STYLE: &str = r#"
:root { --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --muted: #6e7781; --line: #d0d7de; --eager: #8c959f; --compiled: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; margin: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 6px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.summary { font-weight: 600; margin: 6px 0; } .env { color: var(--muted); font-size: 12px; margin: 0; padding-left: 18px; }
table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: middle; }
thead th { background: #f6f8fa; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { overflow-x: auto; } table.cases { font-size: 13px; } table.cases th, table.cases td { padding: 3px 6px; }
code, .case { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
.st { font-weight: 600; white-space: nowrap; } .st a { color: inherit; text-decoration: none; }
.st-ok { background: #dafbe1; color: var(--ok); } .st-warn { background: #fff8c5; color: var(--warn); }
.st-bad { background: #ffebe9; color: var(--bad); } .st-none { background: #f6f8fa; color: var(--muted); font-weight: 400; }
.st small { font-weight: 400; display: block; }
.finding { border-left: 3px solid var(--warn); padding: 2px 10px; margin: 6px 0; } .finding.err { border-color: var(--bad); }
.finding .where { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; color: var(--muted); }
pre.src { background: #f6f8fa; border: 1px solid var(--line); padding: 4px 8px; margin: 4px 0; overflow-x: auto; }
pre.src .ln { color: var(--muted); user-select: none; margin-right: 12px; }
.unavailable { color: var(--muted); font-style: italic; }
.regression { color: var(--bad); font-weight: 600; } .muted { color: var(--muted); }
svg text { font: 11px ui-monospace, SFMono-Regular, Menlo, monospace; fill: #1f2328; }
.legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; vertical-align: middle; }
body.only-findings tr.clean, body.only-findings article.clean { display: none; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
"#;

/// The filter checkbox, and a marker the browser test reads to know the script ran to its end.
const SCRIPT: &str = r#"
(function () {
  var box = document.getElementById("only-findings");
  box.addEventListener("change", function () { document.body.classList.toggle("only-findings", box.checked); });
  document.documentElement.setAttribute("data-ready", "1");
})();
"#;

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn status_class(status: &Status) -> &'static str {
    match status {
        Status::Ok => "st-ok",
        Status::ParityFail => "st-warn",
        Status::NoTorch => "st-none",
        _ => "st-bad",
    }
}

/// A grid column: one interpreter (torch version; qualified with the Python when two share the version).
#[derive(PartialEq)]
struct Column {
    torch: Option<String>,
    python_executable: Option<String>,
    label: String,
}

fn columns(results: &[CaseResult]) -> Vec<Column> {
    let mut columns: Vec<Column> = Vec::new();
    for result in results {
        let exists = columns.iter().any(|c| {
            c.torch == result.torch_version && c.python_executable == result.python_executable
        });
        if !exists {
            columns.push(Column {
                torch: result.torch_version.clone(),
                python_executable: result.python_executable.clone(),
                label: String::new(),
            });
        }
    }
    let labels: Vec<String> = columns
        .iter()
        .map(|column| {
            let torch = column.torch.clone().unwrap_or_else(|| "no torch".into());
            let shared = columns.iter().filter(|c| c.torch == column.torch).count() > 1;
            if shared {
                format!(
                    "torch {torch} ({})",
                    column.python_executable.as_deref().unwrap_or("?")
                )
            } else {
                format!("torch {torch}")
            }
        })
        .collect();
    for (column, label) in columns.iter_mut().zip(labels) {
        column.label = label;
    }
    columns
}

fn plural(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// Source lines of the files the report points at, read once each.
struct Sources<'a> {
    cwd: &'a Path,
    files: HashMap<PathBuf, Option<Vec<String>>>,
}

impl Sources<'_> {
    /// The line as `<pre>` HTML, or a note saying why it cannot be shown.
    fn line_html(&mut self, filename: Option<&str>, line: Option<u64>) -> String {
        let (Some(filename), Some(line)) = (filename, line) else {
            return String::new();
        };
        // Baselines carry paths relative to the project; results carry absolute ones.
        let path = self.cwd.join(filename);
        let lines = self.files.entry(path.clone()).or_insert_with(|| {
            std::fs::read_to_string(&path)
                .ok()
                .map(|text| text.lines().map(str::to_owned).collect())
        });
        match lines
            .as_ref()
            .and_then(|l| l.get(usize::try_from(line).ok()?.checked_sub(1)?))
        {
            Some(text) => format!(
                "<pre class=\"src\"><span class=\"ln\">{line}</span>{}</pre>",
                escape(text)
            ),
            None => format!(
                "<div class=\"unavailable\">source line not available ({} cannot be read or is shorter)</div>",
                escape(&report::show_path(filename, self.cwd))
            ),
        }
    }
}

fn bars(result: &CaseResult) -> String {
    let (Some(eager), Some(compiled)) = (result.eager_ms, result.compiled_ms) else {
        return "<span class=\"muted\">-</span>".into();
    };
    let top = eager.max(compiled);
    if !(top.is_finite() && top > 0.0) {
        return "<span class=\"muted\">-</span>".into();
    }
    const WIDTH: f64 = 120.0;
    let length = |value: f64| ((value / top) * WIDTH).max(1.0);
    let label = |value: f64| report::milliseconds(Some(value));
    format!(
        "<svg width=\"190\" height=\"30\" viewBox=\"0 0 190 30\" role=\"img\" aria-label=\"eager {e} ms, compiled {c} ms\">\
         <title>eager {e} ms · compiled {c} ms</title>\
         <rect class=\"bar-eager\" x=\"0\" y=\"2\" width=\"{le:.1}\" height=\"11\" fill=\"#8c959f\"></rect>\
         <text x=\"{te:.1}\" y=\"12\">{e}</text>\
         <rect class=\"bar-compiled\" x=\"0\" y=\"16\" width=\"{lc:.1}\" height=\"11\" fill=\"#0969da\"></rect>\
         <text x=\"{tc:.1}\" y=\"26\">{c}</text></svg>",
        e = label(eager),
        c = label(compiled),
        le = length(eager),
        lc = length(compiled),
        te = length(eager) + 4.0,
        tc = length(compiled) + 4.0,
    )
}

fn has_findings(result: &CaseResult) -> bool {
    !result.status.is_ok()
        || result.graph_break_count.unwrap_or(0) > 0
        || result.recompiles.unwrap_or(0) > 0
        || result.cache_limit_hit
}

pub fn render(document: &Document) -> String {
    let results = document.results;
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>graphbreak check</title>\n<style>",
    );
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<header>\n<h1>graphbreak check</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"summary\" id=\"summary\">{}</p>",
        escape(&report::summary_line(document))
    );
    out.push_str("<ul class=\"env\">\n");
    for line in report::environment_lines(document) {
        let _ = writeln!(out, "<li>{}</li>", escape(&line));
    }
    out.push_str("</ul>\n<p><label><input type=\"checkbox\" id=\"only-findings\"> only cases with breaks, recompiles or failures</label></p>\n</header>\n");

    if let Some(path) = document.baseline {
        out.push_str("<section id=\"baseline\">\n<h2>Baseline</h2>\n");
        if document.regressions.is_empty() {
            let _ = writeln!(
                out,
                "<p>No regressions against <code>{}</code>.</p>",
                escape(&path.display().to_string())
            );
        } else {
            let _ = writeln!(
                out,
                "<p class=\"regression\">{} regression(s) against <code>{}</code>:</p>\n<ul>",
                document.regressions.len(),
                escape(&path.display().to_string())
            );
            for regression in document.regressions {
                let _ = writeln!(out, "<li class=\"regression\">{}</li>", escape(regression));
            }
            out.push_str("</ul>\n");
        }
        if !document.baseline_unchecked.is_empty() || !document.baseline_notes.is_empty() {
            out.push_str("<ul>\n");
            for unchecked in document.baseline_unchecked {
                let _ = writeln!(out, "<li>unchecked: {}</li>", escape(unchecked));
            }
            for note in document.baseline_notes {
                let _ = writeln!(out, "<li class=\"muted\">note: {}</li>", escape(note));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</section>\n");
    }

    // The grid: one row per case (first-seen order), one column per interpreter.
    let columns = columns(results);
    let mut cases: Vec<&str> = Vec::new();
    for result in results {
        let case = result.case.as_deref().unwrap_or("?");
        if !cases.contains(&case) {
            cases.push(case);
        }
    }
    out.push_str("<section id=\"grid\">\n<h2>Status by case and torch version</h2>\n<table class=\"grid\">\n<thead><tr><th>case</th>");
    for column in &columns {
        let _ = write!(out, "<th>{}</th>", escape(&column.label));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for case in &cases {
        let clean = results
            .iter()
            .filter(|r| r.case.as_deref().unwrap_or("?") == *case)
            .all(|r| !has_findings(r));
        let _ = write!(
            out,
            "<tr{}><th class=\"case\">{}</th>",
            if clean { " class=\"clean\"" } else { "" },
            escape(case)
        );
        for column in &columns {
            let found = results.iter().enumerate().find(|(_, r)| {
                r.case.as_deref().unwrap_or("?") == *case
                    && r.torch_version == column.torch
                    && r.python_executable == column.python_executable
            });
            let attributes = format!(
                "data-case=\"{}\" data-torch=\"{}\"",
                escape(case),
                escape(column.torch.as_deref().unwrap_or(""))
            );
            match found {
                Some((index, result)) => {
                    let mut facts = Vec::new();
                    if let Some(breaks) = result.graph_break_count.filter(|n| *n > 0) {
                        facts.push(plural(breaks, "break"));
                    }
                    if let Some(recompiles) = result.recompiles.filter(|n| *n > 0) {
                        facts.push(plural(recompiles, "recompile"));
                    }
                    let facts = if facts.is_empty() {
                        String::new()
                    } else {
                        format!("<small>{}</small>", escape(&facts.join(", ")))
                    };
                    let _ = write!(
                        out,
                        "<td class=\"st {}\" {attributes} data-status=\"{}\"><a href=\"#r{index}\">{}{facts}</a></td>",
                        status_class(&result.status),
                        escape(result.status.as_str()),
                        escape(result.status.as_str()),
                    );
                }
                None => {
                    let _ = write!(
                        out,
                        "<td class=\"st st-none\" {attributes} data-status=\"not-run\">not run</td>"
                    );
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</section>\n");

    // The per-case table.
    out.push_str("<section id=\"cases\">\n<h2>Cases</h2>\n<p class=\"legend muted\">ms per step (median):<span style=\"background:#8c959f\"></span>eager<span style=\"background:#0969da\"></span>compiled</p>\n<div class=\"scroll\"><table class=\"cases\">\n<thead><tr>");
    for header in report::HEADERS {
        let _ = write!(out, "<th>{}</th>", escape(header));
    }
    out.push_str("<th>eager vs compiled</th><th>GPU</th></tr></thead>\n<tbody>\n");
    for (index, result) in results.iter().enumerate() {
        let cells = report::row(result);
        let _ = write!(
            out,
            "<tr id=\"r{index}\"{}>",
            if has_findings(result) {
                ""
            } else {
                " class=\"clean\""
            }
        );
        for (column, cell) in cells.iter().enumerate() {
            let _ = match column {
                0 => write!(
                    out,
                    "<td class=\"case\"><a href=\"#d{index}\">{}</a></td>",
                    escape(cell)
                ),
                1 => write!(out, "<td>{}</td>", escape(cell)),
                2 => write!(
                    out,
                    "<td class=\"st {}\">{}</td>",
                    status_class(&result.status),
                    escape(cell)
                ),
                _ => write!(out, "<td class=\"num\">{}</td>", escape(cell)),
            };
        }
        let gpu = match &result.gpu {
            Some(gpu) => format!(
                "<span title=\"{}\">{} · {}</span>",
                escape(gpu.uuid.as_deref().unwrap_or("")),
                gpu.index.map_or("?".to_owned(), |i| i.to_string()),
                escape(gpu.name.as_deref().unwrap_or("?"))
            ),
            None => "<span class=\"muted\">-</span>".into(),
        };
        let _ = writeln!(out, "<td>{}</td><td>{gpu}</td></tr>", bars(result));
    }
    out.push_str("</tbody>\n</table></div>\n</section>\n");

    // Details: each break and error with its source line.
    out.push_str("<section id=\"details\">\n<h2>Breaks, recompiles and errors</h2>\n");
    let mut sources = Sources {
        cwd: document.cwd,
        files: HashMap::new(),
    };
    let mut any = false;
    for (index, result) in results.iter().enumerate() {
        let mut body = String::new();
        for graph_break in &result.graph_breaks {
            let (place, code, outside) = report::break_label(graph_break, document.cwd);
            let _ = writeln!(
                body,
                "<div class=\"finding break\"><div class=\"where\">{}</div><div>{}graph break: {}{outside}</div>{}</div>",
                escape(&place),
                escape(&code),
                escape(report::first_line(
                    graph_break.reason.as_deref().unwrap_or("?")
                )),
                sources.line_html(graph_break.filename.as_deref(), graph_break.line)
            );
        }
        if let Some(error) = &result.error {
            let place = error
                .filename
                .as_deref()
                .map(|file| {
                    let shown = report::show_path(file, document.cwd);
                    match error.line {
                        Some(line) => format!("{shown}:{line}"),
                        None => shown,
                    }
                })
                .unwrap_or_default();
            let phase = error
                .phase
                .as_deref()
                .map(|p| format!(" [{p}]"))
                .unwrap_or_default();
            let traceback = error
                .traceback_tail
                .as_deref()
                .filter(|t| !t.trim().is_empty())
                .map(|t| {
                    format!(
                        "<details><summary>traceback</summary><pre class=\"src\">{}</pre></details>",
                        escape(t)
                    )
                })
                .unwrap_or_default();
            let _ = writeln!(
                body,
                "<div class=\"finding err\"><div class=\"where\">{}</div><div>{}{}: {}: {}</div>{}{traceback}</div>",
                escape(&place),
                escape(result.status.as_str()),
                escape(&phase),
                escape(error.error_type.as_deref().unwrap_or("Error")),
                escape(report::first_line(error.message.as_deref().unwrap_or(""))),
                sources.line_html(error.filename.as_deref(), error.line)
            );
        }
        // Recompiles, compile cost and the harness's notes: the text report's lines, escaped.
        for line in report::findings(result, document.cwd)
            .into_iter()
            .filter(|line| {
                line.starts_with("recompiles:") || line.starts_with("  recompile reason:")
            })
        {
            let _ = writeln!(body, "<div class=\"finding\">{}</div>", escape(line.trim()));
        }
        // How parity was judged (its reference, and why eager's own large error is compared by ratio).
        for line in super::parity_report::parity_lines(result) {
            let _ = writeln!(body, "<div class=\"finding\">{}</div>", escape(line.trim()));
        }
        if let Some(line) = report::cost_line(result) {
            let _ = writeln!(body, "<div class=\"muted\">{}</div>", escape(&line));
        }
        for note in &result.notes {
            let _ = writeln!(
                body,
                "<div class=\"muted\">note: {}</div>",
                escape(report::first_line(note))
            );
        }
        if body.is_empty() {
            continue;
        }
        any = true;
        let _ = writeln!(
            out,
            "<article id=\"d{index}\"{}>\n<h3>{} · torch {}</h3>\n{body}</article>",
            if has_findings(result) {
                ""
            } else {
                " class=\"clean\""
            },
            escape(result.case.as_deref().unwrap_or("?")),
            escape(result.torch_version.as_deref().unwrap_or("-"))
        );
    }
    if !any {
        out.push_str("<p class=\"muted\">Nothing to report.</p>\n");
    }
    out.push_str("</section>\n");
    let _ = writeln!(
        out,
        "<footer>graphbreak {} · schema {}</footer>",
        env!("CARGO_PKG_VERSION"),
        super::record::SCHEMA_VERSION
    );
    out.push_str("<script>");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escapes_markup_from_cases_and_sources() {
        assert_eq!(
            escape("<script>\"a\" & 'b'</script>"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;"
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("m.py"),
            "x = 1\nif a < b and c > d: # </pre>\n",
        )
        .unwrap();
        let results: Vec<CaseResult> = vec![
            serde_json::from_value(json!({
                "case": "m.py::case_<b>", "status": "ok", "torch_version": "2.11.0", "graph_break_count": 1,
                "graph_breaks": [{"reason": "<img src=x>", "filename": "m.py", "line": 2},
                                  {"reason": "gone", "filename": "m.py", "line": 99}],
            }))
            .unwrap(),
        ];
        let document = Document {
            environment: &[],
            results: &results,
            options: json!({"device": "cpu", "measure": false}),
            regressions: &[],
            baseline_notes: &[],
            baseline_unchecked: &[],
            baseline: None,
            interrupted: false,
            cwd: dir.path(),
            shard: None,
        };
        let page = render(&document);
        assert!(
            page.contains(
                "<span class=\"ln\">2</span>if a &lt; b and c &gt; d: # &lt;/pre&gt;</pre>"
            )
        );
        assert!(page.contains("graph break: &lt;img src=x&gt;"));
        assert!(page.contains("source line not available"));
        assert!(!page.contains("<img"), "no markup from the data survives");
        assert!(!page.contains("case_<b>"));
    }
}
