//! Phase 6: diagnostics to text (flake8/ruff style), full text (with the source line and a caret,
//! like ruff's `full`), JSON (ruff's `--output-format json` shape), GitHub Actions annotations,
//! SARIF 2.1.0 or JUnit XML; and `--statistics` (findings per code).

mod full;
mod junit;
pub mod reach;

use crate::diagnostics::Diagnostic;
use crate::rules;
use std::io::Write;
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    /// Text plus the source line with a caret under the finding (like ruff's `full`).
    Full,
    Json,
    Github,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// JUnit XML: one test suite per file with findings, one failed test case per finding.
    Junit,
}

/// What the text formats' closing line says besides the findings.
pub struct Summary {
    pub files: usize,
    /// Findings hidden because `--baseline` records them.
    pub baselined: usize,
    pub quiet: bool,
    /// nn.Module forwards in the scanned files that the configured roots do not reach.
    pub unreached: usize,
    /// With `--fix`: how many findings the fixes removed.
    pub fixed: Option<usize>,
    /// `rule-url-base` from the configuration: where JSON and SARIF rule links point.
    pub rule_url_base: Option<String>,
    /// What is done with the option tier, and how many findings it holds.
    pub option_gated: (crate::config::OptionGated, usize),
}

pub fn write(
    out: &mut dyn Write,
    format: OutputFormat,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> std::io::Result<()> {
    match format {
        OutputFormat::Text => write_text(out, diagnostics, summary, false),
        OutputFormat::Full => write_text(out, diagnostics, summary, true),
        OutputFormat::Json => write_json(out, diagnostics, summary.rule_url_base.as_deref()),
        OutputFormat::Github => write_github(out, diagnostics),
        OutputFormat::Sarif => write_sarif(out, diagnostics, summary.rule_url_base.as_deref()),
        OutputFormat::Junit => junit::write(out, diagnostics, summary.option_gated.0, display_path),
    }
}

/// `--statistics`: one line per code, most frequent first (ruff's layout: count, code, `[*]` when
/// every finding of the code is fixable, rule name); a JSON array with `--output-format json`.
pub fn write_statistics(
    out: &mut dyn Write,
    format: OutputFormat,
    diagnostics: &[Diagnostic],
) -> std::io::Result<()> {
    let mut counts: Vec<(&'static str, usize, usize)> = Vec::new();
    for d in diagnostics {
        let fixable = usize::from(d.fix.is_some());
        match counts.iter_mut().find(|(code, _, _)| *code == d.code) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += fixable;
            }
            None => counts.push((d.code, 1, fixable)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let name = |code: &str| rules::by_code(code).map_or("", |r| r.name);
    if format == OutputFormat::Json {
        let items: Vec<serde_json::Value> = counts
            .iter()
            .map(|&(code, count, fixable)| {
                serde_json::json!({
                    "code": code,
                    "name": name(code),
                    "count": count,
                    "fixable": fixable == count,
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &items)?;
        return writeln!(out);
    }
    let count_width = counts.iter().map(|c| c.1.to_string().len()).max();
    let code_width = counts.iter().map(|c| c.0.len()).max().unwrap_or(0);
    for &(code, count, fixable) in &counts {
        writeln!(
            out,
            "{count:>width$}\t{code:<code_width$}\t{marker}{name}",
            width = count_width.unwrap_or(1),
            marker = if fixable == count { "[*] " } else { "" },
            name = name(code),
        )?;
    }
    Ok(())
}

/// The path relative to the current directory when it is below it (one `getcwd` per run).
pub fn display_path(path: &Path) -> String {
    static CWD: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    CWD.get_or_init(|| std::env::current_dir().ok())
        .as_deref()
        .and_then(|cwd| path.strip_prefix(cwd).ok())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn write_text(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    with_source: bool,
) -> std::io::Result<()> {
    let mut sources = full::Sources::default();
    for d in diagnostics {
        let fixable = if d.fix.is_some() { " [*]" } else { "" };
        writeln!(
            out,
            "{}: {}{} {}",
            d.place(&display_path(&d.path)),
            d.code,
            fixable,
            d.message
        )?;
        // A notebook's rows count within its cells, not the file's JSON lines: no snippet.
        if with_source && d.cell.is_none() {
            full::write_snippet(out, d, &mut sources)?;
        }
    }
    if summary.quiet {
        return Ok(());
    }
    let files = summary.files;
    let fixable = diagnostics.iter().filter(|d| d.fix.is_some()).count();
    // With `--option-gated warn` (the default) the option tier is listed last and summarized
    // apart; with `error` it counts like the rest.
    let (mode, gated) = summary.option_gated;
    let counted: Vec<&Diagnostic> = match mode {
        crate::config::OptionGated::Error => diagnostics.iter().collect(),
        _ => diagnostics
            .iter()
            .filter(|d| !d.is_option_gated())
            .collect(),
    };
    let files = match files {
        1 => "1 file".to_owned(),
        n => format!("{n} files"),
    };
    let unreached = match summary.unreached {
        0 => String::new(),
        1 => "; 1 nn.Module forward not reached from the roots, see --show-unreached".to_owned(),
        n => format!("; {n} nn.Module forwards not reached from the roots, see --show-unreached"),
    };
    if let Some(fixed) = summary.fixed {
        writeln!(
            out,
            "Fixed {fixed} finding{} ({} remaining).",
            if fixed == 1 { "" } else { "s" },
            diagnostics.len()
        )?;
    }
    if counted.is_empty() {
        writeln!(out, "All checks passed! ({files} scanned{unreached})")?;
    } else {
        let noun = if counted.len() == 1 {
            "finding"
        } else {
            "findings"
        };
        write!(
            out,
            "Found {} {noun} in {files} scanned{}.",
            counted.len(),
            if unreached.is_empty() {
                String::new()
            } else {
                format!(" ({})", &unreached[2..])
            }
        )?;
        if fixable > 0 {
            write!(out, " [*] {fixable} fixable with `--fix`.")?;
        }
        writeln!(out)?;
    }
    if gated > 0 && mode != crate::config::OptionGated::Error {
        let (them, how) = match mode {
            crate::config::OptionGated::Hide => ("not shown", "`--option-gated warn` shows them"),
            _ => (
                "listed last",
                "`--option-gated error` fails on them, `hide` hides them",
            ),
        };
        writeln!(
            out,
            "{gated} more only with a constructor option off its default that nothing in the scanned files sets ({them}; they do not fail the run; {how})."
        )?;
    }
    if summary.baselined > 0 {
        writeln!(
            out,
            "{} more in the baseline (not shown; they do not fail the run).",
            summary.baselined
        )?;
    }
    Ok(())
}

fn location_json(location: crate::source::Location) -> serde_json::Value {
    serde_json::json!({ "row": location.row, "column": location.column })
}

fn write_json(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    url_base: Option<&str>,
) -> std::io::Result<()> {
    let items: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|d| {
            let fix = d.fix.as_ref().map(|fix| {
                serde_json::json!({
                    "applicability": "safe",
                    "message": fix.message,
                    "edits": fix.edits.iter().map(|e| serde_json::json!({
                        "content": e.content,
                        "location": location_json(e.location),
                        "end_location": location_json(e.end_location),
                    })).collect::<Vec<_>>(),
                })
            });
            serde_json::json!({
                "cell": d.cell,
                "code": d.code,
                "also": d.also,
                "message": d.message,
                "filename": d.path.display().to_string(),
                "location": location_json(d.location),
                "end_location": location_json(d.end_location),
                "fix": fix,
                "url": rules::by_code(d.code).map(|r| r.url(url_base)),
                "noqa_row": d.location.row,
                "reached_from": reach::chain_json(&d.reached_from),
                "gated_by": d.gated_by.iter().map(gate_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &items)?;
    writeln!(out)
}

fn write_github(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> std::io::Result<()> {
    for d in diagnostics {
        writeln!(
            out,
            "::{kind} title=graphbreak ({code}),file={file},line={row},col={col},endLine={erow},endColumn={ecol}::{place}: {code} {message}",
            kind = if d.is_option_gated() {
                "notice"
            } else {
                "error"
            },
            place = d.place(&display_path(&d.path)),
            code = d.code,
            file = display_path(&d.path),
            row = d.location.row,
            col = d.location.column,
            erow = d.end_location.row,
            ecol = d.end_location.column,
            message = d.message.replace('%', "%25").replace('\n', "%0A"),
        )?;
    }
    Ok(())
}

fn write_sarif(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    url_base: Option<&str>,
) -> std::io::Result<()> {
    // SARIF's helpUri must be an absolute URI: without a configured base (the default links are
    // relative) the rules carry their full documentation text only.
    let absolute_base = url_base.filter(|base| base.contains("://"));
    let rules_json: Vec<serde_json::Value> = rules::ALL
        .iter()
        .map(|rule| {
            let mut entry = serde_json::json!({
                "id": rule.code,
                "name": rule.name,
                "shortDescription": { "text": rule.summary },
                "fullDescription": { "text": rule.doc() },
                "properties": { "family": rule.family.as_str(), "torch_versions": rule.torch_versions },
            });
            if absolute_base.is_some() {
                entry["helpUri"] = rule.url(absolute_base).into();
            }
            entry
        })
        .collect();
    let results: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|d| {
            let level = match rules::by_code(d.code).map(|r| r.family) {
                // The option tier: a hazard only for users who set the option.
                _ if d.is_option_gated() => "note",
                Some(rules::Family::Crash | rules::Family::Meta) => "error",
                _ => "warning",
            };
            // A notebook's rows count within a code cell, not the file's JSON lines: the message
            // says which cell, and the result carries it as a property.
            let text = match d.cell {
                Some(cell) => format!("cell {cell}: {}", d.message),
                None => d.message.clone(),
            };
            let mut result = serde_json::json!({
                "ruleId": d.code,
                "level": level,
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": display_path(&d.path).replace('\\', "/") },
                        "region": {
                            "startLine": d.location.row,
                            "startColumn": d.location.column,
                            "endLine": d.end_location.row,
                            "endColumn": d.end_location.column,
                        },
                    },
                }],
            });
            if let Some(cell) = d.cell {
                result["properties"] = serde_json::json!({ "cell": cell });
            }
            if d.is_option_gated() {
                result["properties"]["gated_by"] =
                    d.gated_by.iter().map(gate_json).collect::<Vec<_>>().into();
            }
            result
        })
        .collect();
    let document = serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "graphbreak",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules_json,
                },
            },
            "results": results,
        }],
    });
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

/// One entry of `gated_by`: `class`/`option`/`default`/`needs`, and `"setting": true` for a
/// module- or class-level setting (`class` is then its module, `option` its name).
fn gate_json(gate: &crate::semantic::options::GateOption) -> serde_json::Value {
    let mut out = serde_json::json!({
        "class": gate.class,
        "option": gate.option,
        "default": gate.default,
        "needs": gate.needs,
    });
    if gate.setting {
        out["setting"] = true.into();
    }
    out
}
