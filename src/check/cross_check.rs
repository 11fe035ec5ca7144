//! Static meets runtime: the rules' findings on the lines Dynamo traced, next to what Dynamo did there.
//!
//! For each check result with a trace map, the static scan runs in-process (same rules, same per-file
//! configuration as `graphbreak scan`) over the traced files with the trace map as its region
//! (`scan::traced`). Then:
//! - each runtime event (break, crash, recompile) lists the findings on the same statement
//!   (`predicted_by`; empty: no rule saw it coming);
//! - each finding on a traced line is `confirmed` true when an event of the kind it claims happened on
//!   its statement, false when it claims a break, crash or recompile that did not happen on this torch (a
//!   measured false positive), null when it claims nothing Dynamo reports (a sync stall, a version floor).
//!
//! "Same statement": the innermost statement around the event line (for `if`/`while`/`for`/`with`, its
//! header); a recompile reported at a function's `def` line (no guard source line) matches the
//! recompile-family findings anywhere in that function; a crash also matches the crash-family findings
//! on the headers of the `if`/`elif` tests that decide whether its statement runs (a finding that
//! says "this guard lets Dynamo trace the branch that crashes").

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ruff_python_ast::{self as ast, Stmt};
use ruff_text_size::Ranged;

use super::record::CaseResult;
pub use super::record_parts::{Claim, CrossCheck, EventCheck, FindingCheck};
use super::report::{location, show_path, write_case_heading};
use super::trace::{self, EventKind, RuntimeEvent, TracedRegion as TracedLines};
use crate::diagnostics::Diagnostic;
use crate::rules::{self, Family};
use crate::scan::{self, RegionSource};
use crate::source::{self, LineIndex};

fn claim_of(code: &str) -> Option<Claim> {
    match rules::by_code(code)?.family {
        Family::Break | Family::Crash => Some(Claim::BreakOrCrash),
        Family::Recompile => Some(Claim::Recompile),
        _ => None,
    }
}

fn claim_matches(claim: Option<Claim>, kind: EventKind) -> bool {
    match claim {
        Some(Claim::BreakOrCrash) => matches!(kind, EventKind::Break | EventKind::Crash),
        Some(Claim::Recompile) => kind == EventKind::Recompile,
        None => true,
    }
}

// ----- statements --------------------------------------------------------------------------------

/// Row spans of a file's statements (compound ones: their header only) and functions.
#[derive(Default)]
pub(super) struct Statements {
    /// (first row, last row) of each statement or header, outer before inner.
    spans: Vec<(u32, u32)>,
    /// (first row incl. decorators, last row) of each function.
    functions: Vec<(u32, u32)>,
    /// (header first row, header last row, last row it decides) of each `if`/`elif` test: the rest of
    /// the `if` statement, or — when the `if` has no `else` and its body ends in `return`/`raise` — the
    /// rest of the enclosing block (the fall-through is the other branch).
    guards: Vec<(u32, u32, u32)>,
}

impl Statements {
    pub(super) fn parse(path: &Path) -> Statements {
        let Ok(text) = source::read_source(path) else {
            return Statements::default();
        };
        let parsed = ruff_python_parser::parse_unchecked_source(&text, ast::PySourceType::Python);
        let lines = LineIndex::new(&text);
        let mut statements = Statements::default();
        let row = |offset: ruff_text_size::TextSize| lines.line_of(offset.into()) as u32 + 1;
        statements.walk(&parsed.syntax().body, &row);
        statements
    }

    fn walk(&mut self, body: &[Stmt], row: &dyn Fn(ruff_text_size::TextSize) -> u32) {
        let block_end = body.last().map_or(0, |last| row(last.end()));
        for statement in body {
            let start = row(statement.start());
            let end = row(statement.end()).max(start);
            // A compound statement's header ends on the row before its first body statement.
            let header = |first_body: Option<&Stmt>| {
                first_body.map_or(end, |first| row(first.start()).saturating_sub(1).max(start))
            };
            match statement {
                Stmt::FunctionDef(function) => {
                    self.functions.push((start, end));
                    self.spans.push((start, header(function.body.first())));
                    self.walk(&function.body, row);
                }
                Stmt::ClassDef(class) => {
                    self.spans.push((start, header(class.body.first())));
                    self.walk(&class.body, row);
                }
                Stmt::If(node) => {
                    let if_header = header(node.body.first());
                    self.spans.push((start, if_header));
                    let exits = matches!(node.body.last(), Some(Stmt::Return(_) | Stmt::Raise(_)));
                    let decides = if node.elif_else_clauses.is_empty() && exits {
                        block_end.max(end)
                    } else {
                        end
                    };
                    self.guards.push((start, if_header, decides));
                    self.walk(&node.body, row);
                    for clause in &node.elif_else_clauses {
                        let clause_start = row(clause.start());
                        let clause_header = clause.body.first().map_or(clause_start, |first| {
                            row(first.start()).saturating_sub(1).max(clause_start)
                        });
                        self.spans.push((clause_start, clause_header));
                        if clause.test.is_some() {
                            self.guards.push((clause_start, clause_header, end));
                        }
                        self.walk(&clause.body, row);
                    }
                }
                Stmt::For(node) => {
                    self.spans.push((start, header(node.body.first())));
                    self.walk(&node.body, row);
                    self.walk(&node.orelse, row);
                }
                Stmt::While(node) => {
                    self.spans.push((start, header(node.body.first())));
                    self.walk(&node.body, row);
                    self.walk(&node.orelse, row);
                }
                Stmt::With(node) => {
                    self.spans.push((start, header(node.body.first())));
                    self.walk(&node.body, row);
                }
                Stmt::Try(node) => {
                    self.spans.push((start, header(node.body.first())));
                    self.walk(&node.body, row);
                    for handler in &node.handlers {
                        let ast::ExceptHandler::ExceptHandler(handler) = handler;
                        let handler_start = row(handler.start());
                        let handler_header = handler.body.first().map_or(handler_start, |first| {
                            row(first.start()).saturating_sub(1).max(handler_start)
                        });
                        self.spans.push((handler_start, handler_header));
                        self.walk(&handler.body, row);
                    }
                    self.walk(&node.orelse, row);
                    self.walk(&node.finalbody, row);
                }
                Stmt::Match(node) => {
                    let first_case = node.cases.first().map(|c| row(c.start()));
                    self.spans.push((
                        start,
                        first_case.map_or(end, |r| r.saturating_sub(1).max(start)),
                    ));
                    for case in &node.cases {
                        let case_start = row(case.start());
                        let case_header = case.body.first().map_or(case_start, |first| {
                            row(first.start()).saturating_sub(1).max(case_start)
                        });
                        self.spans.push((case_start, case_header));
                        self.walk(&case.body, row);
                    }
                }
                _ => self.spans.push((start, end)),
            }
        }
    }

    /// The innermost statement span around `line` (the line itself when none is known).
    pub(super) fn statement_at(&self, line: u32) -> (u32, u32) {
        self.spans
            .iter()
            .filter(|(first, last)| *first <= line && line <= *last)
            .min_by_key(|(first, last)| (last - first, std::cmp::Reverse(*first)))
            .copied()
            .unwrap_or((line, line))
    }

    /// Header spans of the `if`/`elif` tests that decide whether `line` runs (it lies after the header,
    /// within what the test decides).
    fn guards_of(&self, line: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.guards
            .iter()
            .filter(move |(_, header_last, decides)| *header_last < line && line <= *decides)
            .map(|(first, last, _)| (*first, *last))
    }

    fn function_starting_at(&self, line: u32) -> Option<(u32, u32)> {
        self.functions
            .iter()
            .filter(|(first, _)| *first == line)
            .max_by_key(|(first, last)| last - first)
            .copied()
    }
}

// ----- the cross-check --------------------------------------------------------------------------

/// The scan's region for a trace map: exactly the traced lines (guards are not evaluated there: Dynamo ran
/// the code, the trace is the truth).
pub fn region_of(traced: &TracedLines) -> RegionSource {
    RegionSource::Lines(
        traced
            .iter()
            .map(|(path, lines)| (path.clone(), lines.iter().copied().collect()))
            .collect(),
    )
}

/// Keeps the findings whose span touches a traced line: file-level findings (configuration, version
/// floor) elsewhere in a traced file say nothing about what Dynamo did.
pub fn keep_traced(diagnostics: &mut Vec<Diagnostic>, traced: &TracedLines) {
    diagnostics.retain(|d| {
        traced.get(&d.path).is_some_and(|lines| {
            let first = d.location.row.min(d.statement_rows.0);
            let last = d.end_location.row.max(d.statement_rows.1).max(first);
            lines.range(first..=last).next().is_some()
        })
    });
}

/// Runs the static scan over the traced files, region = the trace map. `torch`: the version that
/// traced them, read as the floor so version-dependent guards (`torch.compiler.is_exporting()` is
/// True under compile from 2.9) take the value they had in that run.
fn scan_traced(
    traced: &TracedLines,
    torch: Option<crate::config::TorchVersion>,
) -> Result<Vec<Diagnostic>, String> {
    let paths: Vec<PathBuf> = traced
        .iter()
        .filter(|(path, lines)| !lines.is_empty() && path.is_file())
        .map(|(path, _)| path.clone())
        .collect();
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let options = scan::ScanOptions {
        paths,
        region: region_of(traced),
        torch_version: torch,
        ..Default::default()
    };
    let mut diagnostics = scan::run(&options)?.diagnostics;
    keep_traced(&mut diagnostics, traced);
    Ok(diagnostics)
}

/// The cross-check of a trace map and its events against the findings of a scan with that region
/// (and, when known, the torch version that traced as the floor).
pub fn cross_check(
    traced: &TracedLines,
    events: &[RuntimeEvent],
    torch: Option<crate::config::TorchVersion>,
) -> CrossCheck {
    // The files scan_traced reads: an event elsewhere was never compared with any finding.
    let scanned = |path: &Path| {
        traced
            .get(path)
            .is_some_and(|lines| !lines.is_empty() && path.is_file())
    };
    match scan_traced(traced, torch) {
        Ok(diagnostics) => compare_scanned(&diagnostics, events, &scanned),
        Err(error) => {
            let mut check = compare_scanned(&[], events, &scanned);
            check.error = Some(error);
            check
        }
    }
}

/// Pairs findings and events by statement (every event's file taken as scanned).
#[cfg(test)]
pub fn compare(diagnostics: &[Diagnostic], events: &[RuntimeEvent]) -> CrossCheck {
    compare_scanned(diagnostics, events, &|_| true)
}

/// Pairs findings and events by statement; an event in a file `scanned` rejects is `not_scanned`.
pub fn compare_scanned(
    diagnostics: &[Diagnostic],
    events: &[RuntimeEvent],
    scanned: &dyn Fn(&Path) -> bool,
) -> CrossCheck {
    let mut statements: HashMap<PathBuf, Statements> = HashMap::new();
    // For each finding, the kinds of the events on its statement.
    let mut seen_kinds: Vec<BTreeSet<EventKind>> = vec![BTreeSet::new(); diagnostics.len()];
    let mut checked_events = Vec::new();
    for event in events {
        let mut predicted_by = BTreeSet::new();
        if let (Some(filename), Some(line)) = (&event.filename, event.line) {
            let path = PathBuf::from(filename);
            let file_statements = statements
                .entry(path.clone())
                .or_insert_with(|| Statements::parse(&path));
            let function = (event.kind == EventKind::Recompile)
                .then(|| file_statements.function_starting_at(line))
                .flatten();
            let (first, last) = function.unwrap_or_else(|| file_statements.statement_at(line));
            for (index, diagnostic) in diagnostics.iter().enumerate() {
                let (start, end) = (diagnostic.location.row, diagnostic.end_location.row);
                if diagnostic.path != path || end < first || start > last {
                    continue;
                }
                // A finding merged from several codes (one cause, one finding: `also`) predicts
                // with each of them.
                let codes = std::iter::once(diagnostic.code).chain(diagnostic.also.iter().copied());
                let mut predicted = false;
                for code in codes {
                    if function.is_some() && claim_of(code) != Some(Claim::Recompile) {
                        continue;
                    }
                    predicted_by.insert(code.to_owned());
                    predicted = true;
                }
                if predicted {
                    seen_kinds[index].insert(event.kind);
                }
            }
            // A crash-family finding on a guard's header claims the crash of the branch it lets
            // Dynamo trace: a crash there is that finding's too (the guard and the statement that
            // raised are different lines of one prediction).
            if event.kind == EventKind::Crash {
                let guards: Vec<(u32, u32)> = file_statements.guards_of(line).collect();
                for (index, diagnostic) in diagnostics.iter().enumerate() {
                    let (start, end) = (diagnostic.location.row, diagnostic.end_location.row);
                    let on_guard = guards
                        .iter()
                        .any(|(first, last)| start <= *last && end >= *first);
                    let crash_family = rules::by_code(diagnostic.code)
                        .is_some_and(|rule| rule.family == Family::Crash);
                    if diagnostic.path == path && on_guard && crash_family {
                        predicted_by.insert(diagnostic.code.to_owned());
                        seen_kinds[index].insert(event.kind);
                    }
                }
            }
        }
        let not_scanned = event
            .filename
            .as_deref()
            .is_some_and(|filename| !scanned(Path::new(filename)));
        checked_events.push(EventCheck {
            event: event.clone(),
            predicted_by: predicted_by.into_iter().collect(),
            not_scanned,
        });
    }
    let findings = diagnostics
        .iter()
        .zip(&seen_kinds)
        .map(|(diagnostic, kinds)| {
            let claims = claim_of(diagnostic.code);
            let happened = kinds.iter().any(|&kind| claim_matches(claims, kind));
            FindingCheck {
                code: diagnostic.code.to_owned(),
                filename: diagnostic.path.display().to_string(),
                line: diagnostic.location.row,
                end_line: diagnostic.end_location.row,
                message: diagnostic.message.clone(),
                claims,
                confirmed: if happened {
                    Some(true)
                } else {
                    claims.map(|_| false)
                },
            }
        })
        .collect();
    CrossCheck {
        events: checked_events,
        findings,
        error: None,
    }
}

/// Adds `cross_check` to a result that has a trace map (and merges repeated `runtime_events`).
pub fn attach(result: &mut CaseResult) {
    let Some(traced) = trace::traced_of(result) else {
        return;
    };
    let events = trace::events_of(result);
    let torch = result
        .torch_version
        .as_deref()
        .and_then(crate::config::TorchVersion::parse);
    result.cross_check = Some(cross_check(&traced, &events, torch));
    result.runtime_events = events;
}

/// Recomputes `cross_check` for every result of a report or JSONL stream with this build's rules (the
/// Dynamo facts stay as recorded) and writes `{"results": [...]}`: re-measures recall and precision after a
/// rule change without recompiling anything.
pub fn recheck(input: &Path, output: &Path) -> Result<usize, String> {
    let mut results = trace::load_results(input)?;
    for result in &mut results {
        attach(result);
        super::sync_check::attach(result);
    }
    let document = serde_json::json!({ "results": results });
    let text = serde_json::to_string_pretty(&document).map_err(|e| e.to_string())?;
    std::fs::write(output, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    Ok(results.len())
}

// ----- rendering --------------------------------------------------------------------------------

fn share(part: usize, whole: usize) -> String {
    if whole == 0 {
        "n/a".to_owned()
    } else {
        format!("{:.0}%", 100.0 * part as f64 / whole as f64)
    }
}

/// The stripped source text of one line, for the reader who has no editor open.
fn source_line(path: &str, line: u32) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let content = text.lines().nth(line.checked_sub(1)? as usize)?.trim();
    Some(content.chars().take(100).collect())
}

fn event_line(check: &EventCheck, cwd: &Path) -> String {
    let event = &check.event;
    let place = location(event.filename.as_deref(), event.line.map(u64::from), cwd)
        .unwrap_or_else(|| "<unknown>".to_owned());
    let code = event
        .gb_code
        .as_deref()
        .map(|c| format!(" {c}"))
        .unwrap_or_default();
    let times = if event.count > 1 {
        format!(" ×{}", event.count)
    } else {
        String::new()
    };
    let text = match (&event.filename, event.line) {
        (Some(file), Some(line)) => source_line(file, line)
            .map(|s| format!(" `{s}`"))
            .unwrap_or_default(),
        _ => String::new(),
    };
    let verdict = if check.not_scanned {
        "not scanned (its file was not part of the scan)".to_owned()
    } else if check.predicted_by.is_empty() {
        "NOT PREDICTED".to_owned()
    } else {
        format!("predicted by {}", check.predicted_by.join(", "))
    };
    format!(
        "{place}: {}{code}{times}{text} — {verdict}",
        event.kind.as_str()
    )
}

struct Totals {
    /// Events in scanned files (the denominator of "predicted").
    events: usize,
    not_scanned: usize,
    predicted: usize,
    checkable: usize,
    confirmed: usize,
    unclaimed: usize,
    /// GB code (or kind when none) → (events, an example place and reason).
    unpredicted: BTreeMap<String, (usize, String)>,
    results_without_trace: usize,
}

impl Totals {
    fn new() -> Totals {
        Totals {
            events: 0,
            not_scanned: 0,
            predicted: 0,
            checkable: 0,
            confirmed: 0,
            unclaimed: 0,
            unpredicted: BTreeMap::new(),
            results_without_trace: 0,
        }
    }

    fn add(&mut self, check: &CrossCheck, cwd: &Path) {
        self.events += check.scanned_events();
        self.not_scanned += check.events.len() - check.scanned_events();
        self.predicted += check.predicted();
        self.checkable += check.checkable_findings();
        self.confirmed += check.confirmed();
        self.unclaimed += check.findings.len() - check.checkable_findings();
        for event in check
            .events
            .iter()
            .filter(|e| e.predicted_by.is_empty() && !e.not_scanned)
        {
            let key = event
                .event
                .gb_code
                .clone()
                .unwrap_or_else(|| format!("({}, no GB code)", event.event.kind.as_str()));
            let entry = self.unpredicted.entry(key).or_insert((0, String::new()));
            entry.0 += 1;
            if entry.1.is_empty() {
                let place = match (&event.event.filename, event.event.line) {
                    (Some(file), Some(line)) => format!("{}:{line}", show_path(file, cwd)),
                    _ => "<unknown>".to_owned(),
                };
                let reason: String = event
                    .event
                    .reason
                    .as_deref()
                    .unwrap_or("")
                    .chars()
                    .take(90)
                    .collect();
                entry.1 = format!("{place} {reason}");
            }
        }
    }
}

fn totals(results: &[CaseResult], cwd: &Path) -> Option<Totals> {
    let mut totals = Totals::new();
    let mut any = false;
    for result in results {
        match &result.cross_check {
            Some(check) => {
                any = true;
                totals.add(check, cwd);
            }
            None => totals.results_without_trace += 1,
        }
    }
    any.then_some(totals)
}

fn unpredicted_table(totals: &Totals) -> String {
    let mut out = String::new();
    if !totals.unpredicted.is_empty() {
        let _ = writeln!(
            out,
            "unpredicted events by GB code (candidates for new rules):"
        );
        for (code, (count, example)) in &totals.unpredicted {
            let _ = writeln!(out, "  {code:<24} {count:>4}  e.g. {example}");
        }
    }
    out
}

/// `scan --traced`: says on each finding whether the report saw its event, and returns the closing
/// summary (events predicted, findings confirmed, unpredicted events by GB code).
/// `scanned`: the paths the scan was given (files or folders); events elsewhere are "not scanned".
pub fn mark_confirmed(
    diagnostics: &mut Vec<Diagnostic>,
    report: &trace::ReportTrace,
    scanned: &[PathBuf],
) -> String {
    keep_traced(diagnostics, &report.region);
    let roots: Vec<PathBuf> = scanned
        .iter()
        .map(|path| crate::scan::discover::absolute(path))
        .collect();
    let in_scan = |path: &Path| roots.iter().any(|root| path.starts_with(root));
    let check = compare_scanned(diagnostics, &report.events, &in_scan);
    let torch = report
        .torch_versions
        .iter()
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    for (diagnostic, finding) in diagnostics.iter_mut().zip(&check.findings) {
        match finding.confirmed {
            Some(true) => diagnostic.message.push_str(" [confirmed at runtime]"),
            Some(false) => {
                let _ = write!(
                    diagnostic.message,
                    " [not seen at runtime on torch {torch}]"
                );
            }
            None => {}
        }
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut totals = Totals::new();
    totals.add(&check, &cwd);
    let mut out = String::new();
    for event in check
        .events
        .iter()
        .filter(|e| e.predicted_by.is_empty() && !e.not_scanned)
    {
        let _ = writeln!(out, "{}", event_line(event, &cwd));
    }
    let _ = writeln!(out, "{}", totals_line(&totals));
    out.push_str(&unpredicted_table(&totals));
    out
}

fn totals_line(totals: &Totals) -> String {
    let mut line = format!(
        "runtime events predicted by scan: {} of {} ({}) · traced-line findings confirmed: {} of {} ({})",
        totals.predicted,
        totals.events,
        share(totals.predicted, totals.events),
        totals.confirmed,
        totals.checkable,
        share(totals.confirmed, totals.checkable),
    );
    if totals.unclaimed > 0 {
        let _ = write!(
            line,
            " + {} finding(s) that claim no event Dynamo reports",
            totals.unclaimed
        );
    }
    if totals.not_scanned > 0 {
        let _ = write!(
            line,
            " · {} event(s) in files not scanned",
            totals.not_scanned
        );
    }
    if totals.results_without_trace > 0 {
        let _ = write!(
            line,
            " · {} result(s) without a trace map",
            totals.results_without_trace
        );
    }
    line
}

/// The text report's closing section: each event with its line and verdict, the shares, and the
/// unpredicted events by GB code. Empty when no result has a trace map.
pub fn render_text(results: &[CaseResult], cwd: &Path) -> String {
    let Some(totals) = totals(results, cwd) else {
        return String::new();
    };
    let mut out = String::from("\ncross-check (static scan vs what Dynamo did):\n");
    for result in results {
        let Some(check) = &result.cross_check else {
            continue;
        };
        if check.events.is_empty() && check.findings.is_empty() && check.error.is_none() {
            continue;
        }
        write_case_heading(&mut out, result, check.error.as_deref());
        for event in &check.events {
            let _ = writeln!(out, "  {}", event_line(event, cwd));
        }
        for finding in check.findings.iter().filter(|f| f.confirmed == Some(false)) {
            let _ = writeln!(
                out,
                "  {}:{}: {} not confirmed: no {} here on this torch",
                show_path(&finding.filename, cwd),
                finding.line,
                finding.code,
                match finding.claims {
                    Some(Claim::Recompile) => "recompile",
                    _ => "break or crash",
                }
            );
        }
    }
    let _ = writeln!(out, "{}", totals_line(&totals));
    out.push_str(&unpredicted_table(&totals));
    out
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The markdown report's closing section (same facts as the text one).
pub fn render_markdown(results: &[CaseResult], cwd: &Path) -> String {
    let Some(totals) = totals(results, cwd) else {
        return String::new();
    };
    let mut out = String::from("\n#### Cross-check: static scan vs what Dynamo did\n\n");
    let mut rows = Vec::new();
    for result in results {
        let Some(check) = &result.cross_check else {
            continue;
        };
        for event in &check.events {
            rows.push(format!(
                "| `{}` | {} |",
                cell(result.case.as_deref().unwrap_or("?")),
                cell(&event_line(event, cwd))
            ));
        }
    }
    if !rows.is_empty() {
        out.push_str("| case | runtime event — prediction |\n|---|---|\n");
        for row in rows {
            let _ = writeln!(out, "{row}");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}\n", cell(&totals_line(&totals)));
    if !totals.unpredicted.is_empty() {
        out.push_str("Unpredicted events by GB code (candidates for new rules):\n\n| GB code | events | example |\n|---|---|---|\n");
        for (code, (count, example)) in &totals.unpredicted {
            let _ = writeln!(out, "| {} | {count} | {} |", cell(code), cell(example));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Location;

    fn diagnostic(code: &'static str, path: &Path, row: u32, end_row: u32) -> Diagnostic {
        Diagnostic {
            cell: None,
            code,
            message: String::new(),
            path: path.to_path_buf(),
            location: Location { row, column: 1 },
            end_location: Location {
                row: end_row,
                column: 1,
            },
            statement_rows: (row, end_row),
            also: Vec::new(),
            fix: None,
            reached_from: Vec::new(),
            gated_by: Vec::new(),
        }
    }

    fn event(kind: EventKind, path: &Path, line: u32) -> RuntimeEvent {
        RuntimeEvent {
            kind,
            filename: Some(path.display().to_string()),
            line: Some(line),
            gb_code: None,
            reason: None,
            count: 1,
        }
    }

    #[test]
    fn events_match_findings_on_the_same_statement() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.py");
        std::fs::write(
            &path,
            "def forward(self, x):\n    self.n += 1\n    y = (x\n         .item())\n    if y > 0:\n        return x\n    return x.cos()\n",
        )
        .unwrap();
        let diagnostics = [
            diagnostic("SY002", &path, 3, 4),
            diagnostic("BR001", &path, 5, 5),
            diagnostic("RC001", &path, 2, 2),
            diagnostic("CR001", &path, 7, 7),
        ];
        let events = [
            // Dynamo reports the `.item()` call's own line: same statement as the finding's start.
            event(EventKind::Break, &path, 4),
            event(EventKind::Break, &path, 6),
            // A recompile reported at the def line: recompile-family findings of that function only.
            event(EventKind::Recompile, &path, 1),
        ];
        let check = compare(&diagnostics, &events);
        let predicted: Vec<&[String]> = check
            .events
            .iter()
            .map(|e| e.predicted_by.as_slice())
            .collect();
        assert_eq!(predicted[0], ["SY002"]);
        assert!(predicted[1].is_empty());
        assert_eq!(predicted[2], ["RC001"]);
        let confirmed: Vec<(&str, Option<bool>)> = check
            .findings
            .iter()
            .map(|f| (f.code.as_str(), f.confirmed))
            .collect();
        assert_eq!(
            confirmed,
            [
                ("SY002", Some(true)),
                ("BR001", Some(false)),
                ("RC001", Some(true)),
                ("CR001", Some(false)),
            ]
        );
        assert_eq!(
            (
                check.predicted(),
                check.confirmed(),
                check.checkable_findings()
            ),
            (2, 2, 4)
        );
    }

    #[test]
    fn events_outside_the_scanned_files_are_not_scanned_never_unpredicted() {
        let dir = tempfile::tempdir().unwrap();
        let scanned = dir.path().join("model.py");
        let elsewhere = dir.path().join("library.py");
        for path in [&scanned, &elsewhere] {
            std::fs::write(path, "def f(x):\n    return x.item()\n").unwrap();
        }
        let diagnostics = [diagnostic("SY002", &scanned, 2, 2)];
        let events = [
            event(EventKind::Break, &scanned, 2),
            event(EventKind::Break, &elsewhere, 2),
        ];
        let check = compare_scanned(&diagnostics, &events, &|path| path == scanned);
        assert_eq!(check.events[0].predicted_by, ["SY002"]);
        assert!(!check.events[0].not_scanned);
        assert!(check.events[1].predicted_by.is_empty() && check.events[1].not_scanned);
        assert_eq!((check.scanned_events(), check.predicted()), (1, 1));
        let cwd = dir.path();
        assert!(
            event_line(&check.events[1], cwd)
                .ends_with("— not scanned (its file was not part of the scan)")
        );
        let mut totals = Totals::new();
        totals.add(&check, cwd);
        let line = totals_line(&totals);
        assert!(
            line.starts_with("runtime events predicted by scan: 1 of 1 (100%)")
                && line.ends_with(" · 1 event(s) in files not scanned"),
            "{line}"
        );
        assert!(unpredicted_table(&totals).is_empty());
    }

    #[test]
    fn a_crash_matches_the_crash_finding_on_the_guard_that_lets_it_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.py");
        std::fs::write(
            &path,
            "def f(x):\n    if is_tracing():\n        hw = 1\n    else:\n        hw = crash(x)\n    return hw\n\n\
             def g(x):\n    if is_tracing():\n        return 1\n    y = x + 1\n    return crash(y)\n\n\
             def h(x):\n    if x.sum() > 0:\n        x = x * 2\n    return crash(x)\n",
        )
        .unwrap();
        let diagnostics = [
            diagnostic("CR002", &path, 2, 2),
            diagnostic("CR001", &path, 5, 5),
            diagnostic("CR002", &path, 9, 9),
            diagnostic("CR001", &path, 12, 12),
            diagnostic("CR002", &path, 15, 15),
            diagnostic("BR001", &path, 15, 15),
        ];
        let events = [
            event(EventKind::Crash, &path, 5),
            event(EventKind::Crash, &path, 12),
            event(EventKind::Crash, &path, 17),
        ];
        let check = compare(&diagnostics, &events);
        // In the else branch; after an `if` whose body returns (the fall-through is the other branch).
        assert_eq!(check.events[0].predicted_by, ["CR001", "CR002"]);
        assert_eq!(check.events[1].predicted_by, ["CR001", "CR002"]);
        // After an `if` that falls through: that test does not decide whether line 17 runs.
        assert!(check.events[2].predicted_by.is_empty());
        let confirmed: Vec<_> = check.findings.iter().map(|f| f.confirmed).collect();
        assert_eq!(
            confirmed,
            [
                Some(true),
                Some(true),
                Some(true),
                Some(true),
                Some(false),
                Some(false)
            ]
        );
    }

    #[test]
    fn a_header_event_matches_the_header_not_the_body() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.py");
        std::fs::write(
            &path,
            "def f(x):\n    if x.sum() > 0:\n        x = x.item()\n    return x\n",
        )
        .unwrap();
        let diagnostics = [diagnostic("SY002", &path, 3, 3)];
        let check = compare(&diagnostics, &[event(EventKind::Break, &path, 2)]);
        assert!(check.events[0].predicted_by.is_empty());
        assert_eq!(check.findings[0].confirmed, None);
    }

    /// transformers' `_ignore_bidirectional_mask_sdpa` (5.x, masking_utils.py): every line of the
    /// test is traced, but `padding_mask.all()` never runs under compile. From torch 2.9
    /// `is_exporting()` is True inside torch.compile, so the first operand is False and `and` stops
    /// there; the branch on `mask.any()` below is a real break and stays.
    const SHORT_CIRCUITED_MASK_CHECK: &str = "\
import torch
from torch import nn


class Masked(nn.Module):
    def forward(self, x, padding_mask):
        if (
            not (torch.compiler.is_exporting() or (padding_mask is not None and torch.compiler.is_compiling()))
            and (padding_mask is None or padding_mask.all())
        ):
            x = x * 2
        if not torch.compiler.is_compiling() and padding_mask.sum() > 3:
            x = x * 3
        if padding_mask.any():
            x = x + 1
        return x
";

    fn rows_of(check: &CrossCheck) -> Vec<(&str, u32)> {
        check
            .findings
            .iter()
            .map(|f| (f.code.as_str(), f.line))
            .collect()
    }

    #[test]
    fn a_trace_map_keeps_guard_facts_within_a_traced_statement() {
        let dir = tempfile::tempdir().unwrap();
        let path = crate::scan::discover::absolute(&dir.path().join("masked.py"));
        std::fs::write(&path, SHORT_CIRCUITED_MASK_CHECK).unwrap();
        let rows = SHORT_CIRCUITED_MASK_CHECK.lines().count() as u32;
        let traced: TracedLines = [(path.clone(), (1..=rows).collect())].into();
        let two_eleven = crate::config::TorchVersion::parse("2.11");
        // Traced by torch 2.11: both short-circuited operands are silent, the real branch is kept.
        let check = cross_check(&traced, &[], two_eleven);
        assert_eq!(check.error, None);
        assert_eq!(rows_of(&check), vec![("BR001", 14)]);
        // Read with a 2.6 floor, `is_exporting()` is unknown under compile (missing before 2.7):
        // the mask check may run and is reported; `not is_compiling() and ...` is False on any torch.
        // (VR001 also says `is_exporting` is newer than that floor: the same statement, so one
        // finding, BR001, that names VR001 too.)
        let check = cross_check(&traced, &[], crate::config::TorchVersion::parse("2.6"));
        assert_eq!(rows_of(&check), vec![("BR001", 9), ("BR001", 14)]);
    }
}
