//! Phase 6: diagnostics to text (flake8/ruff style), JSON (ruff's `--output-format json` shape) or
//! GitHub Actions annotations.

use crate::diagnostics::Diagnostic;
use crate::rules;
use std::io::Write;
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    Github,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
}

pub fn write(
    out: &mut dyn Write,
    format: OutputFormat,
    diagnostics: &[Diagnostic],
    files: usize,
    quiet: bool,
) -> std::io::Result<()> {
    match format {
        OutputFormat::Text => write_text(out, diagnostics, files, quiet),
        OutputFormat::Json => write_json(out, diagnostics),
        OutputFormat::Github => write_github(out, diagnostics),
        OutputFormat::Sarif => write_sarif(out, diagnostics),
    }
}

/// The path relative to the current directory when it is below it (one `getcwd` per run).
fn display_path(path: &Path) -> String {
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
    files: usize,
    quiet: bool,
) -> std::io::Result<()> {
    for d in diagnostics {
        let fixable = if d.fix.is_some() { " [*]" } else { "" };
        writeln!(
            out,
            "{}:{}:{}: {}{} {}",
            display_path(&d.path),
            d.location.row,
            d.location.column,
            d.code,
            fixable,
            d.message
        )?;
    }
    if quiet {
        return Ok(());
    }
    let fixable = diagnostics.iter().filter(|d| d.fix.is_some()).count();
    let files = match files {
        1 => "1 file".to_owned(),
        n => format!("{n} files"),
    };
    if diagnostics.is_empty() {
        writeln!(out, "All checks passed! ({files} scanned)")?;
    } else {
        let noun = if diagnostics.len() == 1 {
            "finding"
        } else {
            "findings"
        };
        write!(
            out,
            "Found {} {noun} in {files} scanned.",
            diagnostics.len()
        )?;
        if fixable > 0 {
            write!(out, " [*] {fixable} fixable with `--fix`.")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn location_json(location: crate::source::Location) -> serde_json::Value {
    serde_json::json!({ "row": location.row, "column": location.column })
}

fn write_json(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> std::io::Result<()> {
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
                "cell": null,
                "code": d.code,
                "message": d.message,
                "filename": d.path.display().to_string(),
                "location": location_json(d.location),
                "end_location": location_json(d.end_location),
                "fix": fix,
                "url": rules::by_code(d.code).map(|r| r.url()),
                "noqa_row": d.location.row,
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
            "::error title=graphbreak ({code}),file={file},line={row},col={col},endLine={erow},endColumn={ecol}::{file}:{row}:{col}: {code} {message}",
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

fn write_sarif(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> std::io::Result<()> {
    let rules_json: Vec<serde_json::Value> = rules::ALL
        .iter()
        .map(|rule| {
            serde_json::json!({
                "id": rule.code,
                "name": rule.name,
                "shortDescription": { "text": rule.summary },
                "fullDescription": { "text": rule.doc() },
                "helpUri": rule.url(),
                "properties": { "family": rule.family.as_str(), "torch_versions": rule.torch_versions },
            })
        })
        .collect();
    let results: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|d| {
            let level = match rules::by_code(d.code).map(|r| r.family) {
                Some(rules::Family::Crash | rules::Family::Meta) => "error",
                _ => "warning",
            };
            serde_json::json!({
                "ruleId": d.code,
                "level": level,
                "message": { "text": d.message },
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
            })
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
                    "informationUri": "https://github.com/graphbreak/graphbreak",
                    "rules": rules_json,
                },
            },
            "results": results,
        }],
    });
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}
