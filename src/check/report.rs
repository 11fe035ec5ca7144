//! Rendering a check run: text (terminal), markdown (PR comment) and JSON (`{"environment", "results"}`).
//! Every format carries the same facts: the environment, one row per case × interpreter, then each break,
//! recompile and error with its source location.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};

use super::record::{
    CaseResult, GraphBreak, ProbeEnvironment, SCHEMA_VERSION, TimingStats, round3,
};

pub struct Document<'a> {
    /// One `harness.py env` object per interpreter.
    pub environment: &'a [ProbeEnvironment],
    pub results: &'a [CaseResult],
    pub options: Value,
    pub regressions: &'a [String],
    /// What the baseline comparison could not check (unmatched cases, another torch release).
    pub baseline_notes: &'a [String],
    /// Baseline comparisons that could not be made (a value missing on one side): exit 3 on their own.
    pub baseline_unchecked: &'a [String],
    pub baseline: Option<&'a Path>,
    pub interrupted: bool,
    /// Paths under it are shown relative to it.
    pub cwd: &'a Path,
    /// `check --shard`: the part of the plan this report holds (written as `shard` in the JSON report).
    pub shard: Option<&'a super::shard::ShardInfo>,
}

pub(super) const HEADERS: [&str; 11] = [
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
pub fn progress_summary(result: &CaseResult) -> String {
    let mut parts = vec![result.status.to_string()];
    if let Some(breaks) = result.graph_break_count {
        parts.push(format!(
            "{breaks} break{}",
            if breaks == 1 { "" } else { "s" }
        ));
    }
    if let Some(recompiles) = result.recompiles {
        parts.push(format!(
            "{recompiles} recompile{}",
            if recompiles == 1 { "" } else { "s" }
        ));
    }
    match cached_from(result) {
        Some(from) => parts.push(format!(
            "cached (run {from}, took {:.1} s)",
            result.wall_seconds.unwrap_or(0.0)
        )),
        None => parts.push(format!("{:.1} s", result.wall_seconds.unwrap_or(0.0))),
    }
    if server_lost(result).is_some() {
        parts.push("re-run spawned (the fork server was lost)".into());
    }
    parts.join(", ")
}

/// When the stored result served from the result cache was run (None: this result was run now).
pub(super) fn cached_from(result: &CaseResult) -> Option<&str> {
    let mark = result.cache.as_ref().filter(|mark| mark.hit)?;
    Some(mark.from.as_deref().unwrap_or("earlier"))
}

/// How the fork server was lost while this case ran in it (the result is then the case's spawned re-run).
fn server_lost(result: &CaseResult) -> Option<&str> {
    result.worker.as_ref()?.server_lost.as_deref()
}

pub(super) fn row(result: &CaseResult) -> [String; 11] {
    let count = |value: Option<u64>| value.map_or("-".to_owned(), |n| n.to_string());
    let mut recompiles = count(result.recompiles);
    if result.cache_limit_hit {
        recompiles.push_str(" (limit)");
    }
    let parity = match result.parity_ok {
        Some(ok) => {
            let word = if ok { "ok" } else { "FAIL" };
            match result.max_abs_diff {
                Some(diff) => format!("{word} {diff:.1e}"),
                None => word.to_owned(),
            }
        }
        None => "-".to_owned(),
    };
    [
        result.case.clone().unwrap_or_else(|| "?".into()),
        result.torch_version.clone().unwrap_or_else(|| "-".into()),
        match cached_from(result) {
            Some(_) => format!("{} (cached)", result.status),
            None => result.status.to_string(),
        },
        count(result.graph_count),
        count(result.graph_break_count),
        recompiles,
        result
            .compile_seconds
            .map_or("-".to_owned(), |s| format!("{s:.2}")),
        milliseconds(result.eager_ms),
        milliseconds(result.compiled_ms),
        result.speedup.map_or("-".to_owned(), |s| {
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

pub(super) fn milliseconds(value: Option<f64>) -> String {
    match value {
        Some(ms) if ms >= 100.0 => format!("{ms:.1}"),
        Some(ms) if ms >= 1.0 => format!("{ms:.2}"),
        Some(ms) => format!("{ms:.3}"),
        None => "-".to_owned(),
    }
}

pub(super) fn show_path(path: &str, cwd: &Path) -> String {
    Path::new(path)
        .strip_prefix(cwd)
        .map(|relative| relative.display().to_string())
        .unwrap_or_else(|_| path.to_owned())
}

/// `file:line` (or the file alone) with the file shown relative to `cwd`; None without a file.
pub(super) fn location(filename: Option<&str>, line: Option<u64>, cwd: &Path) -> Option<String> {
    let file = show_path(filename?, cwd);
    Some(match line {
        Some(line) => format!("{file}:{line}"),
        None => file,
    })
}

/// `text` cut to `limit` characters, with an ellipsis when cut.
pub(super) fn clip(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

pub(super) fn first_line(text: &str) -> &str {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim_end()
}

/// How both reports label a graph break: its place (`file:line`, `<unknown>`), the `GBxxxx ` prefix torch
/// numbers it with (empty when it does not) and the mark for a break outside user code (empty inside).
pub(super) fn break_label(graph_break: &GraphBreak, cwd: &Path) -> (String, String, &'static str) {
    let place = location(graph_break.filename.as_deref(), graph_break.line, cwd)
        .unwrap_or_else(|| "<unknown>".into());
    let code = graph_break
        .gb_code
        .as_deref()
        .map(|c| format!("{c} "))
        .unwrap_or_default();
    let outside = if graph_break.in_user_code == Some(false) {
        " (outside user code)"
    } else {
        ""
    };
    (place, code, outside)
}

/// The finding lines of one result (without indentation): breaks, recompiles, error.
pub(super) fn findings(result: &CaseResult, cwd: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    for graph_break in &result.graph_breaks {
        let (place, code, outside) = break_label(graph_break, cwd);
        lines.push(format!(
            "{place}: {code}graph break: {}{outside}",
            first_line(graph_break.reason.as_deref().unwrap_or("?"))
        ));
    }
    let recompiles = result.recompiles.unwrap_or(0);
    if recompiles > 0 || result.cache_limit_hit {
        let limit = if result.cache_limit_hit {
            ", cache limit hit: fell back to eager"
        } else {
            ""
        };
        let shapes = result
            .distinct_input_shapes
            .map(|n| format!(" over {n} distinct input shapes"))
            .unwrap_or_default();
        lines.push(format!("recompiles: {recompiles}{shapes}{limit}"));
        let mut seen: Vec<(String, usize)> = Vec::new();
        for reason in &result.recompile_reasons {
            let reason = first_line(reason).to_owned();
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
    if let Some(error) = &result.error {
        let phase = error
            .phase
            .as_deref()
            .map(|p| format!(" [{p}]"))
            .unwrap_or_default();
        let message = format!(
            "{}{phase}: {}: {}",
            result.status,
            error.error_type.as_deref().unwrap_or("Error"),
            first_line(error.message.as_deref().unwrap_or(""))
        );
        match location(error.filename.as_deref(), error.line, cwd) {
            Some(place) => lines.push(format!("{place}: {message}")),
            None => lines.push(message),
        }
        // For deaths the harness could not describe, the last output lines are the only clue.
        if result.status.is_death() {
            let stderr = result.stderr_tail.as_deref().unwrap_or("");
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
    lines.extend(super::parity_report::parity_lines(result));
    if let Some(line) = cost_line(result) {
        lines.push(line);
    }
    if let Some(line) = wall_line(result) {
        lines.push(line);
    }
    if let Some(why) = server_lost(result) {
        lines.push(format!(
            "worker: the fork server was lost while this case ran in it ({why}); this is the case's \
             re-run in a fresh interpreter, and this interpreter's later cases were spawned too"
        ));
    }
    lines.extend(super::profile::report_lines(result.profile.as_ref(), cwd));
    lines.extend(super::step_agreement::lines(result));
    // The harness's own caveats (unstable timings, a busy machine, limits hit during timing).
    for note in &result.notes {
        lines.push(format!("note: {}", first_line(note)));
    }
    lines
}

/// Where the case's wall time went: its own work (model build, compile) and graphbreak's share, by phase.
fn wall_line(result: &CaseResult) -> Option<String> {
    let phases = result.phase_seconds.as_ref()?;
    let wall = result.wall_seconds?;
    let added = result.graphbreak_seconds?;
    let mut own = Vec::new();
    for (name, value) in [
        ("model build", phases.model_build),
        ("compile", phases.compile),
        ("recompiles", phases.recompile_schedule),
    ] {
        if let Some(seconds) = value.filter(|s| *s >= 0.005) {
            own.push(format!("{name} {seconds:.2} s"));
        }
    }
    let mut parts = Vec::new();
    for (name, value) in [
        ("eager step", phases.eager_step),
        ("float64 run", phases.float64_reference),
        ("parity", phases.parity),
        ("timing", phases.timing),
        ("eager timing", phases.eager_timing),
        ("explain", phases.explain),
        ("other", phases.process_other),
    ] {
        if let Some(seconds) = value.filter(|s| *s >= 0.005) {
            parts.push(format!("{name} {seconds:.2}"));
        }
    }
    for (name, value) in &phases.extra {
        if let Some(seconds) = value.as_f64().filter(|s| *s >= 0.005) {
            parts.push(format!("{} {seconds:.2}", name.replace('_', " ")));
        }
    }
    let percent = |share: Option<f64>| {
        share
            .map(|s| format!(" ({:.0}%)", s * 100.0))
            .unwrap_or_default()
    };
    let start = match (
        phases.interpreter_start,
        phases.torch_import,
        phases.device_init,
        phases.fork,
    ) {
        (interpreter, Some(import), device, None) => format!(
            " · process start {:.2} s (interpreter {:.2}, torch import {import:.2}, device init {:.2})",
            result.process_start_seconds.unwrap_or(0.0),
            interpreter.unwrap_or(0.0),
            device.unwrap_or(0.0)
        ),
        // Forked by a fork server: its start-up is counted once, in the run's cost line.
        (_, _, device, Some(fork)) => format!(
            " · process start {:.2} s (fork {fork:.2}, device init {:.2}; fork server start-up in the run's total)",
            result.process_start_seconds.unwrap_or(0.0),
            device.unwrap_or(0.0)
        ),
        _ => String::new(),
    };
    let checking = result
        .checking_seconds
        .map(|c| format!(" · checking {c:.2} s{}", percent(result.checking_share)))
        .unwrap_or_default();
    // A case killed in its own work (a hung factory) has no checking phase to list.
    let breakdown = if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    };
    Some(format!(
        "wall {wall:.2} s: {}{start}{checking}{breakdown} · graphbreak in all {added:.2} s{}",
        if own.is_empty() {
            "no compile".to_owned()
        } else {
            own.join(", ")
        },
        percent(result.graphbreak_share)
    ))
}

/// What compiling costs and when it pays back: the figure a team needs before turning compile on.
pub(super) fn cost_line(result: &CaseResult) -> Option<String> {
    let eager = result.eager_ms?;
    let compiled = result.compiled_ms?;
    let spread = |stats: &Option<TimingStats>| match stats.as_ref().map(|s| (s.p10, s.p90)) {
        Some((Some(p10), Some(p90))) => format!(" (p10 {} – p90 {})", ms(p10), ms(p90)),
        _ => String::new(),
    };
    let mut line = format!(
        "timing: eager {} ms{} → compiled {} ms{}",
        ms(eager),
        spread(&result.eager_ms_stats),
        ms(compiled),
        spread(&result.compiled_ms_stats)
    );
    if let Some(seconds) = result.compile_seconds {
        let cache = result
            .compile_cache
            .as_deref()
            .map(|c| format!(", {c} cache"))
            .unwrap_or_default();
        line.push_str(&format!("; first compile {seconds:.2} s{cache}"));
        match result.payback_steps {
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
    milliseconds(Some(value))
}

fn label(result: &CaseResult) -> String {
    let cached = cached_from(result)
        .map(|from| format!(" · cached: the result (timings included) of the run at {from}"))
        .unwrap_or_default();
    format!(
        "{} · torch {}{cached}",
        result.case.as_deref().unwrap_or("?"),
        result.torch_version.as_deref().unwrap_or("-")
    )
}

pub(super) fn environment_lines(document: &Document) -> Vec<String> {
    let mut lines = Vec::new();
    for env in document.environment {
        let field = |value: &Option<String>| value.as_deref().unwrap_or("-").to_owned();
        let torch = match &env.torch_version {
            Some(v) => v.clone(),
            None => format!("not importable ({})", field(&env.torch_error)),
        };
        // The device actually used comes from a result of this interpreter (auto → cuda/cpu).
        let device = document
            .results
            .iter()
            .find(|r| r.python_executable == env.python_executable && r.device.is_some())
            .and_then(|r| r.device.as_deref())
            .unwrap_or_else(|| document.options["device"].as_str().unwrap_or("auto"));
        lines.push(format!(
            "python {} ({}) · torch {torch} · device {device} · CUDA {} · GPU {} · driver {} · {}",
            field(&env.python),
            field(&env.python_executable),
            field(&env.cuda_version),
            field(&env.gpu_name),
            field(&env.driver_version),
            field(&env.platform),
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
        .find_map(|r| r.environment.as_ref()?.timing.as_deref())
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

pub(super) fn summary_line(document: &Document) -> String {
    let results = document.results;
    let ok = results.iter().filter(|r| r.status.is_ok()).count();
    let breaks: u64 = results.iter().filter_map(|r| r.graph_break_count).sum();
    let recompiles: u64 = results.iter().filter_map(|r| r.recompiles).sum();
    let mut line = format!(
        "{} run(s): {ok} ok, {} not ok · {breaks} graph break(s) · {recompiles} recompile(s)",
        results.len(),
        results.len() - ok
    );
    let cached = results.iter().filter(|r| cached_from(r).is_some()).count();
    if cached > 0 {
        line.push_str(&format!(
            " · {cached} cached (nothing they depend on changed; not re-run)"
        ));
    }
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

    let with_findings: Vec<(&CaseResult, Vec<String>)> = document
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
        for unchecked in document.baseline_unchecked {
            let _ = writeln!(out, "  UNCHECKED {unchecked}");
        }
        for note in document.baseline_notes {
            let _ = writeln!(out, "  note: {note}");
        }
    }
    if let Some(line) = run_cost_line(document.results) {
        let _ = writeln!(out, "\n{line}");
    }
    let _ = writeln!(out, "\n{}", summary_line(document));
    out.push_str(&super::cross_check::render_text(
        document.results,
        document.cwd,
    ));
    out.push_str(&super::sync_check::render_text(
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
        for unchecked in document.baseline_unchecked {
            let _ = writeln!(out, "- **unchecked**: {}", markdown_cell(unchecked));
        }
        for note in document.baseline_notes {
            let _ = writeln!(out, "- note: {}", markdown_cell(note));
        }
        if !document.baseline_notes.is_empty() || !document.baseline_unchecked.is_empty() {
            out.push('\n');
        }
    }
    let _ = writeln!(out, "| {} |", HEADERS.join(" | "));
    let _ = writeln!(out, "|{}", ["---|"; 11].concat());
    for result in document.results {
        let mut cells = row(result);
        cells[0] = format!("`{}`", cells[0]);
        if !result.status.is_ok() {
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
    if let Some(line) = run_cost_line(document.results) {
        let _ = writeln!(out, "<sub>{}</sub><br>", markdown_cell(&line));
    }
    let _ = writeln!(out, "\n{}", summary_line(document));
    out.push_str(&super::cross_check::render_markdown(
        document.results,
        document.cwd,
    ));
    out.push_str(&super::sync_check::render_markdown(
        document.results,
        document.cwd,
    ));
    out
}

/// graphbreak's own time over every case of the run: the cases' `graphbreak_seconds` plus each fork
/// server's start-up (interpreter, torch import, CUDA check: paid once per interpreter and lane, in no
/// case's wall), over the cases' wall times plus those start-ups. A failed attempt to start a server
/// (the lane then spawned) is counted the same way.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RunCost {
    pub cases: usize,
    pub wall_seconds: f64,
    pub graphbreak_seconds: f64,
    pub graphbreak_share: Option<f64>,
    pub process_start_seconds: f64,
    pub checking_seconds: f64,
    pub checking_share: Option<f64>,
    /// Cases forked by a fork server / spawned as fresh interpreters.
    pub forked: usize,
    pub spawned: usize,
    /// Fork servers started (each once per interpreter and lane) and the start-up seconds in all (also
    /// of an attempt that failed, after which the lane spawned); included in the sums above.
    pub fork_servers: usize,
    pub fork_server_start_seconds: f64,
}

pub fn run_cost(results: &[CaseResult]) -> Option<RunCost> {
    let mut cost = RunCost::default();
    // A cached result's seconds were spent by an earlier run, not this one.
    for result in results.iter().filter(|r| cached_from(r).is_none()) {
        let (Some(wall), Some(added)) = (result.wall_seconds, result.graphbreak_seconds) else {
            continue;
        };
        cost.cases += 1;
        cost.wall_seconds += wall;
        cost.graphbreak_seconds += added;
        cost.process_start_seconds += result.process_start_seconds.unwrap_or(0.0);
        cost.checking_seconds += result.checking_seconds.unwrap_or(0.0);
        let worker = result.worker.as_ref();
        let forked = worker.and_then(|w| w.mode.as_deref()) == Some("fork_server");
        if forked {
            cost.forked += 1;
        } else {
            cost.spawned += 1;
        }
        // A server's start-up is carried by every case it served; counted with its first. A spawned
        // lane's failed attempt is carried by its first case only.
        let start = worker.and_then(|w| w.start_seconds);
        if let Some(start) = start.filter(|_| !forked || worker.and_then(|w| w.served) == Some(1)) {
            if forked {
                cost.fork_servers += 1;
            }
            cost.fork_server_start_seconds += start;
            cost.wall_seconds += start;
            cost.graphbreak_seconds += start;
            cost.process_start_seconds += start;
        }
    }
    if cost.cases == 0 {
        return None;
    }
    if cost.wall_seconds > 0.0 {
        cost.graphbreak_share = Some(round3(cost.graphbreak_seconds / cost.wall_seconds));
        cost.checking_share = Some(round3(cost.checking_seconds / cost.wall_seconds));
    }
    cost.wall_seconds = round3(cost.wall_seconds);
    cost.graphbreak_seconds = round3(cost.graphbreak_seconds);
    cost.process_start_seconds = round3(cost.process_start_seconds);
    cost.checking_seconds = round3(cost.checking_seconds);
    cost.fork_server_start_seconds = round3(cost.fork_server_start_seconds);
    Some(cost)
}

fn run_cost_line(results: &[CaseResult]) -> Option<String> {
    let cost = run_cost(results)?;
    let percent = |share: Option<f64>| {
        share
            .map(|s| format!(" ({:.1}%)", s * 100.0))
            .unwrap_or_default()
    };
    let processes = match (cost.forked, cost.spawned) {
        (0, spawned) => format!("{spawned} spawned"),
        (forked, 0) => format!(
            "{forked} forked by {} fork server(s) started in {:.2} s",
            cost.fork_servers, cost.fork_server_start_seconds
        ),
        (forked, spawned) => format!(
            "{forked} forked by {} fork server(s) started in {:.2} s, {spawned} spawned",
            cost.fork_servers, cost.fork_server_start_seconds
        ),
    };
    Some(format!(
        "graphbreak's own time: {:.2} s of {:.2} s wall over {} case(s){} — process start {:.2} s, checking {:.2} s{}; case processes: {processes}",
        cost.graphbreak_seconds,
        cost.wall_seconds,
        cost.cases,
        percent(cost.graphbreak_share),
        cost.process_start_seconds,
        cost.checking_seconds,
        percent(cost.checking_share),
    ))
}

pub fn to_json(document: &Document) -> Value {
    let mut value = json!({
        "schema_version": SCHEMA_VERSION,
        "graphbreak_version": env!("CARGO_PKG_VERSION"),
        "options": document.options,
        "environment": document.environment,
        "results": document.results,
        "interrupted": document.interrupted,
    });
    if let Some(cost) = run_cost(document.results) {
        value["cost"] = json!(cost);
    }
    if let Some(shard) = document.shard {
        value["shard"] = json!(shard);
    }
    if let Some(path) = document.baseline {
        value["baseline"] = Value::from(path.display().to_string());
        value["regressions"] = json!(document.regressions);
        value["baseline_notes"] = json!(document.baseline_notes);
        value["baseline_unchecked"] = json!(document.baseline_unchecked);
    }
    value
}

pub fn render_json(document: &Document) -> String {
    let mut text = serde_json::to_string_pretty(&to_json(document)).unwrap_or_default();
    text.push('\n');
    text
}

/// A cross-check section's per-case heading in the text report ("case · torch X"), and the scan's
/// failure under it when the scan that feeds the section failed (shared by the break and sync sections).
pub fn write_case_heading(out: &mut String, result: &CaseResult, scan_error: Option<&str>) {
    let _ = writeln!(
        out,
        "{} · torch {}",
        result.case.as_deref().unwrap_or("?"),
        result.torch_version.as_deref().unwrap_or("-")
    );
    if let Some(error) = scan_error {
        let _ = writeln!(out, "  scan failed: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_cost_adds_each_fork_server_start_once() {
        let record = |value: Value| serde_json::from_value::<CaseResult>(value).unwrap();
        let forked = |served: u32, wall: f64, added: f64| {
            record(json!({"wall_seconds": wall, "graphbreak_seconds": added,
                          "process_start_seconds": 0.25, "checking_seconds": added - 0.25,
                          "worker": {"mode": "fork_server", "served": served, "start_seconds": 8.0}}))
        };
        let spawned_after_a_failed_start = record(json!({
            "wall_seconds": 20.0, "graphbreak_seconds": 9.0, "process_start_seconds": 8.0,
            "checking_seconds": 1.0,
            "worker": {"mode": "spawn", "fallback": "1 Python threads", "start_seconds": 3.0}}));
        let results = vec![
            forked(1, 100.0, 4.25),
            forked(2, 50.0, 2.25),
            spawned_after_a_failed_start,
        ];
        let cost = run_cost(&results).unwrap();
        assert_eq!(cost.cases, 3);
        assert_eq!((cost.forked, cost.spawned, cost.fork_servers), (2, 1, 1));
        // 8 s of server start once, 3 s of the failed attempt once.
        assert_eq!(cost.fork_server_start_seconds, 11.0);
        assert_eq!(cost.wall_seconds, 100.0 + 50.0 + 20.0 + 11.0);
        assert_eq!(cost.graphbreak_seconds, 4.25 + 2.25 + 9.0 + 11.0);
        assert_eq!(cost.process_start_seconds, 0.5 + 8.0 + 11.0);
        assert_eq!(cost.checking_seconds, 4.0 + 2.0 + 1.0);
        assert_eq!(cost.graphbreak_share, Some(0.146));
        let line = run_cost_line(&results).unwrap();
        assert!(
            line.starts_with(
                "graphbreak's own time: 26.50 s of 181.00 s wall over 3 case(s) (14.6%)"
            ),
            "{line}"
        );
        assert!(
            line.ends_with("2 forked by 1 fork server(s) started in 11.00 s, 1 spawned"),
            "{line}"
        );
        assert!(run_cost(&[]).is_none());
    }

    #[test]
    fn cost_line_says_when_compile_pays_back() {
        let record = |value: Value| serde_json::from_value::<CaseResult>(value).unwrap();
        let faster = record(
            json!({"eager_ms": 58.4, "compiled_ms": 54.6, "compile_seconds": 376.0,
                            "compile_cache": "cold", "payback_steps": 98947.0}),
        );
        assert_eq!(
            cost_line(&faster).unwrap(),
            "timing: eager 58.40 ms → compiled 54.60 ms; first compile 376.00 s, cold cache, pays back after 98947 steps"
        );
        let slower = record(
            json!({"eager_ms": 1.0, "compiled_ms": 2.0, "compile_seconds": 1.0, "payback_steps": null}),
        );
        assert!(
            cost_line(&slower)
                .unwrap()
                .ends_with("never pays back (compiled is not faster)")
        );
        assert!(cost_line(&record(json!({"eager_ms": null}))).is_none());
    }

    #[test]
    fn findings_show_locations_relative_to_cwd() {
        let result: CaseResult = serde_json::from_value(json!({
            "case": "c.py::case_x", "status": "compile_error", "torch_version": "2.11.0",
            "graph_breaks": [{"reason": "Unsupported Tensor.item() call\nmore", "filename": "/p/c.py", "line": 7,
                              "gb_code": "GB0124", "in_user_code": true}],
            "recompiles": 2, "recompile_reasons": ["size mismatch", "size mismatch"], "cache_limit_hit": false,
            "error": {"type": "TypeError", "message": "expected Tensor\ntrace", "filename": "/p/c.py", "line": 3,
                      "phase": "compile"},
        }))
        .unwrap();
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
