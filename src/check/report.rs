//! Rendering a check run: text (terminal), markdown (PR comment) and JSON (`{"environment", "results"}`).
//! Every format carries the same facts: the environment, one row per case × interpreter, then each break,
//! recompile and error with its source location.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};

pub struct Document<'a> {
    /// One `harness.py env` object per interpreter.
    pub environment: &'a [Value],
    pub results: &'a [Value],
    pub options: Value,
    pub regressions: &'a [String],
    /// What the baseline comparison could not check (unmatched cases, another torch release).
    pub baseline_notes: &'a [String],
    pub baseline: Option<&'a Path>,
    pub interrupted: bool,
    /// Paths under it are shown relative to it.
    pub cwd: &'a Path,
}

const HEADERS: [&str; 11] = [
    "case",
    "torch",
    "status",
    "graphs",
    "breaks",
    "recompiles",
    "compile s",
    "eager ms",
    "compiled ms",
    "speedup",
    "parity",
];

/// One-line outcome for the progress line on stderr.
pub fn progress_summary(result: &Value) -> String {
    let mut parts = vec![result["status"].as_str().unwrap_or("?").to_owned()];
    if let Some(breaks) = result["graph_break_count"].as_u64() {
        parts.push(format!(
            "{breaks} break{}",
            if breaks == 1 { "" } else { "s" }
        ));
    }
    if let Some(recompiles) = result["recompiles"].as_u64() {
        parts.push(format!(
            "{recompiles} recompile{}",
            if recompiles == 1 { "" } else { "s" }
        ));
    }
    parts.push(format!(
        "{:.1} s",
        result["wall_seconds"].as_f64().unwrap_or(0.0)
    ));
    parts.join(", ")
}

fn row(result: &Value) -> [String; 11] {
    let count = |key: &str| {
        result[key]
            .as_u64()
            .map_or("-".to_owned(), |n| n.to_string())
    };
    let mut recompiles = count("recompiles");
    if result["cache_limit_hit"] == true {
        recompiles.push_str(" (limit)");
    }
    let parity = match result["parity_ok"].as_bool() {
        Some(ok) => {
            let word = if ok { "ok" } else { "FAIL" };
            match result["max_abs_diff"].as_f64() {
                Some(diff) => format!("{word} {diff:.1e}"),
                None => word.to_owned(),
            }
        }
        None => "-".to_owned(),
    };
    [
        result["case"].as_str().unwrap_or("?").to_owned(),
        result["torch_version"].as_str().unwrap_or("-").to_owned(),
        result["status"].as_str().unwrap_or("?").to_owned(),
        count("graph_count"),
        count("graph_break_count"),
        recompiles,
        result["compile_seconds"]
            .as_f64()
            .map_or("-".to_owned(), |s| format!("{s:.2}")),
        milliseconds(&result["eager_ms"]),
        milliseconds(&result["compiled_ms"]),
        result["speedup"].as_f64().map_or("-".to_owned(), |s| {
            // A compiled step 300x slower (recompiling every call) must not print as "0.00x".
            if s >= 0.1 {
                format!("{s:.2}x")
            } else {
                format!("{s:.1e}x")
            }
        }),
        parity,
    ]
}

fn milliseconds(value: &Value) -> String {
    match value.as_f64() {
        Some(ms) if ms >= 100.0 => format!("{ms:.1}"),
        Some(ms) if ms >= 1.0 => format!("{ms:.2}"),
        Some(ms) => format!("{ms:.3}"),
        None => "-".to_owned(),
    }
}

fn show_path(path: &str, cwd: &Path) -> String {
    Path::new(path)
        .strip_prefix(cwd)
        .map(|relative| relative.display().to_string())
        .unwrap_or_else(|_| path.to_owned())
}

fn location(filename: &Value, line: &Value, cwd: &Path) -> Option<String> {
    let file = show_path(filename.as_str()?, cwd);
    Some(match line.as_u64() {
        Some(line) => format!("{file}:{line}"),
        None => file,
    })
}

fn clip(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

fn first_line(text: &str) -> &str {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim_end()
}

/// The finding lines of one result (without indentation): breaks, recompiles, error.
fn findings(result: &Value, cwd: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    for graph_break in result["graph_breaks"].as_array().into_iter().flatten() {
        let place = location(&graph_break["filename"], &graph_break["line"], cwd)
            .unwrap_or_else(|| "<unknown>".into());
        let code = graph_break["gb_code"]
            .as_str()
            .map(|c| format!("{c} "))
            .unwrap_or_default();
        let outside = if graph_break["in_user_code"] == false {
            " (outside user code)"
        } else {
            ""
        };
        lines.push(format!(
            "{place}: {code}graph break: {}{outside}",
            first_line(graph_break["reason"].as_str().unwrap_or("?"))
        ));
    }
    let recompiles = result["recompiles"].as_u64().unwrap_or(0);
    if recompiles > 0 || result["cache_limit_hit"] == true {
        let limit = if result["cache_limit_hit"] == true {
            ", cache limit hit: fell back to eager"
        } else {
            ""
        };
        let shapes = result["distinct_input_shapes"]
            .as_u64()
            .map(|n| format!(" over {n} distinct input shapes"))
            .unwrap_or_default();
        lines.push(format!("recompiles: {recompiles}{shapes}{limit}"));
        let mut seen: Vec<(String, usize)> = Vec::new();
        for reason in result["recompile_reasons"].as_array().into_iter().flatten() {
            let reason = first_line(reason.as_str().unwrap_or("?")).to_owned();
            match seen.iter_mut().find(|(r, _)| *r == reason) {
                Some((_, n)) => *n += 1,
                None => seen.push((reason, 1)),
            }
        }
        // Guard failures of one hazard repeat with a different value each time: a few show the pattern.
        const SHOWN_REASONS: usize = 3;
        for (reason, times) in seen.iter().take(SHOWN_REASONS) {
            let times = if *times > 1 {
                format!(" (×{times})")
            } else {
                String::new()
            };
            lines.push(format!("  recompile reason: {}{times}", clip(reason, 240)));
        }
        if seen.len() > SHOWN_REASONS {
            lines.push(format!(
                "  … {} more recompile reason(s) in the JSON report",
                seen.len() - SHOWN_REASONS
            ));
        }
    }
    let error = &result["error"];
    if error.is_object() {
        let phase = error["phase"]
            .as_str()
            .map(|p| format!(" [{p}]"))
            .unwrap_or_default();
        let message = format!(
            "{}{phase}: {}: {}",
            result["status"].as_str().unwrap_or("error"),
            error["type"].as_str().unwrap_or("Error"),
            first_line(error["message"].as_str().unwrap_or(""))
        );
        match location(&error["filename"], &error["line"], cwd) {
            Some(place) => lines.push(format!("{place}: {message}")),
            None => lines.push(message),
        }
        // For deaths the harness could not describe, the last output lines are the only clue.
        if matches!(
            result["status"].as_str(),
            Some("crash" | "timeout" | "oom" | "harness_error")
        ) {
            let stderr = result["stderr_tail"].as_str().unwrap_or("");
            // The harness's own frames and faulthandler's module list say nothing about the case.
            let tail: Vec<&str> = stderr
                .lines()
                .filter(|l| !l.trim().is_empty())
                .filter(|l| {
                    !l.contains("graphbreak/harness-") && !l.starts_with("Extension modules:")
                })
                .collect();
            for line in &tail[tail.len().saturating_sub(5)..] {
                lines.push(format!("  | {}", line.trim_end()));
            }
        }
    }
    if let Some(line) = cost_line(result) {
        lines.push(line);
    }
    // The harness's own caveats (unstable timings, a busy machine, limits hit during timing).
    for note in result["notes"].as_array().into_iter().flatten() {
        if let Some(note) = note.as_str() {
            lines.push(format!("note: {}", first_line(note)));
        }
    }
    lines
}

/// What compiling costs and when it pays back: the figure a team needs before turning compile on.
fn cost_line(result: &Value) -> Option<String> {
    let eager = result["eager_ms"].as_f64()?;
    let compiled = result["compiled_ms"].as_f64()?;
    let spread = |key: &str| {
        let stats = &result[key];
        match (stats["p10"].as_f64(), stats["p90"].as_f64()) {
            (Some(p10), Some(p90)) => format!(" (p10 {} – p90 {})", ms(p10), ms(p90)),
            _ => String::new(),
        }
    };
    let mut line = format!(
        "timing: eager {} ms{} → compiled {} ms{}",
        ms(eager),
        spread("eager_ms_stats"),
        ms(compiled),
        spread("compiled_ms_stats")
    );
    if let Some(seconds) = result["compile_seconds"].as_f64() {
        let cache = result["compile_cache"]
            .as_str()
            .map(|c| format!(", {c} cache"))
            .unwrap_or_default();
        line.push_str(&format!("; first compile {seconds:.2} s{cache}"));
        match result["payback_steps"].as_f64() {
            Some(steps) => line.push_str(&format!(", pays back after {steps:.0} steps")),
            None if compiled >= eager => {
                line.push_str(", never pays back (compiled is not faster)")
            }
            None => {}
        }
    }
    Some(line)
}

fn ms(value: f64) -> String {
    milliseconds(&Value::from(value))
}

fn label(result: &Value) -> String {
    format!(
        "{} · torch {}",
        result["case"].as_str().unwrap_or("?"),
        result["torch_version"].as_str().unwrap_or("-")
    )
}

fn environment_lines(document: &Document) -> Vec<String> {
    let mut lines = Vec::new();
    for env in document.environment {
        let field = |key: &str| env[key].as_str().unwrap_or("-").to_owned();
        let torch = match env["torch_version"].as_str() {
            Some(v) => v.to_owned(),
            None => format!("not importable ({})", field("torch_error")),
        };
        // The device actually used comes from a result of this interpreter (auto → cuda/cpu).
        let device = document
            .results
            .iter()
            .find(|r| r["python_executable"] == env["python_executable"] && r["device"].is_string())
            .and_then(|r| r["device"].as_str())
            .unwrap_or_else(|| document.options["device"].as_str().unwrap_or("auto"));
        lines.push(format!(
            "python {} ({}) · torch {torch} · device {device} · CUDA {} · GPU {} · driver {} · {}",
            field("python"),
            field("python_executable"),
            field("cuda_version"),
            field("gpu_name"),
            field("driver_version"),
            field("platform"),
        ));
    }
    let options = &document.options;
    let show = |key: &str| match &options[key] {
        Value::Null => "(case)".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let timing = document
        .results
        .iter()
        .find_map(|r| r["environment"]["timing"].as_str())
        .unwrap_or("perf_counter on CPU, CUDA events on GPU");
    let measure = if options["measure"] == true {
        format!(
            "{} warm-up + {} timed steps, median, {timing}",
            options["warmup"], options["steps"]
        )
    } else {
        "not measured (--no-measure)".to_owned()
    };
    lines.push(format!(
        "options: device={} backend={} dynamic={} mode={} fullgraph={} · timing: {measure} · timeout {} s",
        show("device"),
        show("backend"),
        show("dynamic"),
        show("mode"),
        show("fullgraph"),
        options["timeout"].as_f64().unwrap_or(0.0)
    ));
    lines
}

fn summary_line(document: &Document) -> String {
    let results = document.results;
    let ok = results.iter().filter(|r| r["status"] == "ok").count();
    let breaks: u64 = results
        .iter()
        .filter_map(|r| r["graph_break_count"].as_u64())
        .sum();
    let recompiles: u64 = results
        .iter()
        .filter_map(|r| r["recompiles"].as_u64())
        .sum();
    let mut line = format!(
        "{} run(s): {ok} ok, {} not ok · {breaks} graph break(s) · {recompiles} recompile(s)",
        results.len(),
        results.len() - ok
    );
    if document.interrupted {
        line.push_str(" · INTERRUPTED (unfinished cases not shown)");
    }
    line
}

pub fn render_text(document: &Document) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "graphbreak check");
    for line in environment_lines(document) {
        let _ = writeln!(out, "  {line}");
    }
    out.push('\n');
    let rows: Vec<[String; 11]> = document.results.iter().map(row).collect();
    let mut widths = HEADERS.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut render_row = |cells: [&str; 11]| {
        let mut line = String::new();
        for (index, (cell, width)) in cells.iter().zip(widths).enumerate() {
            // Text columns left-aligned, numbers right-aligned.
            if index < 3 {
                let _ = write!(line, "{cell:<width$}  ");
            } else {
                let _ = write!(line, "{cell:>width$}  ");
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    };
    render_row(HEADERS);
    for row in &rows {
        render_row(row.each_ref().map(String::as_str));
    }

    let with_findings: Vec<(&Value, Vec<String>)> = document
        .results
        .iter()
        .map(|r| (r, findings(r, document.cwd)))
        .filter(|(_, lines)| !lines.is_empty())
        .collect();
    if !with_findings.is_empty() {
        let _ = writeln!(out, "\ndetails:");
        for (result, lines) in with_findings {
            let _ = writeln!(out, "{}", label(result));
            for line in lines {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    if let Some(path) = document.baseline {
        if document.regressions.is_empty() {
            let _ = writeln!(out, "\nno regressions against baseline {}", path.display());
        } else {
            let _ = writeln!(out, "\nregressions against baseline {}:", path.display());
            for regression in document.regressions {
                let _ = writeln!(out, "  REGRESSION {regression}");
            }
        }
        for note in document.baseline_notes {
            let _ = writeln!(out, "  note: {note}");
        }
    }
    let _ = writeln!(out, "\n{}", summary_line(document));
    out.push_str(&super::cross_check::render_text(
        document.results,
        document.cwd,
    ));
    out
}

fn markdown_cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

pub fn render_markdown(document: &Document) -> String {
    let mut out = String::from("### graphbreak check\n\n");
    if let Some(path) = document.baseline {
        if document.regressions.is_empty() {
            let _ = writeln!(
                out,
                "No regressions against baseline `{}`.\n",
                path.display()
            );
        } else {
            let _ = writeln!(
                out,
                "**{} regression(s) against baseline `{}`:**\n",
                document.regressions.len(),
                path.display()
            );
            for regression in document.regressions {
                let _ = writeln!(out, "- {}", markdown_cell(regression));
            }
            out.push('\n');
        }
        for note in document.baseline_notes {
            let _ = writeln!(out, "- note: {}", markdown_cell(note));
        }
        if !document.baseline_notes.is_empty() {
            out.push('\n');
        }
    }
    let _ = writeln!(out, "| {} |", HEADERS.join(" | "));
    let _ = writeln!(out, "|{}", ["---|"; 11].concat());
    for result in document.results {
        let mut cells = row(result);
        cells[0] = format!("`{}`", cells[0]);
        if cells[2] != "ok" {
            cells[2] = format!("**{}**", cells[2]);
        }
        let cells: Vec<String> = cells.iter().map(|c| markdown_cell(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    let mut any = false;
    for result in document.results {
        let lines = findings(result, document.cwd);
        if lines.is_empty() {
            continue;
        }
        if !any {
            out.push_str("\n<details><summary>Details: breaks, recompiles, errors, compile cost</summary>\n\n");
            any = true;
        }
        let _ = writeln!(out, "**`{}`**\n```", label(result));
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
        out.push_str("```\n");
    }
    if any {
        out.push_str("\n</details>\n");
    }
    out.push('\n');
    for line in environment_lines(document) {
        let _ = writeln!(out, "<sub>{}</sub><br>", markdown_cell(&line));
    }
    let _ = writeln!(out, "\n{}", summary_line(document));
    out.push_str(&super::cross_check::render_markdown(
        document.results,
        document.cwd,
    ));
    out
}

pub fn to_json(document: &Document) -> Value {
    let mut value = json!({
        "graphbreak_version": env!("CARGO_PKG_VERSION"),
        "options": document.options,
        "environment": document.environment,
        "results": document.results,
        "interrupted": document.interrupted,
    });
    if let Some(path) = document.baseline {
        value["baseline"] = Value::from(path.display().to_string());
        value["regressions"] = json!(document.regressions);
        value["baseline_notes"] = json!(document.baseline_notes);
    }
    value
}

pub fn render_json(document: &Document) -> String {
    let mut text = serde_json::to_string_pretty(&to_json(document)).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_line_says_when_compile_pays_back() {
        let faster = json!({"eager_ms": 58.4, "compiled_ms": 54.6, "compile_seconds": 376.0,
                            "compile_cache": "cold", "payback_steps": 98947.0});
        assert_eq!(
            cost_line(&faster).unwrap(),
            "timing: eager 58.40 ms → compiled 54.60 ms; first compile 376.00 s, cold cache, pays back after 98947 steps"
        );
        let slower = json!({"eager_ms": 1.0, "compiled_ms": 2.0, "compile_seconds": 1.0, "payback_steps": null});
        assert!(
            cost_line(&slower)
                .unwrap()
                .ends_with("never pays back (compiled is not faster)")
        );
        assert!(cost_line(&json!({"eager_ms": null})).is_none());
    }

    #[test]
    fn findings_show_locations_relative_to_cwd() {
        let result = json!({
            "case": "c.py::case_x", "status": "compile_error", "torch_version": "2.11.0",
            "graph_breaks": [{"reason": "Unsupported Tensor.item() call\nmore", "filename": "/p/c.py", "line": 7,
                              "gb_code": "GB0124", "in_user_code": true}],
            "recompiles": 2, "recompile_reasons": ["size mismatch", "size mismatch"], "cache_limit_hit": false,
            "error": {"type": "TypeError", "message": "expected Tensor\ntrace", "filename": "/p/c.py", "line": 3,
                      "phase": "compile"},
        });
        let lines = findings(&result, Path::new("/p"));
        assert_eq!(
            lines[0],
            "c.py:7: GB0124 graph break: Unsupported Tensor.item() call"
        );
        assert_eq!(lines[1], "recompiles: 2");
        assert_eq!(lines[2], "  recompile reason: size mismatch (×2)");
        assert_eq!(
            lines[3],
            "c.py:3: compile_error [compile]: TypeError: expected Tensor"
        );
    }
}
