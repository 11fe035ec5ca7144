//! Syncs cross-checked like breaks: the sync family's findings (and BR001's, whose branch reads a
//! device tensor on the host) next to the host-device syncs `--profile` measured at their lines.
//!
//! For each result with profiled `sync_sites` (CUDA only), the static scan runs in-process over the
//! directories of the files where the syncs happened (user code and model libraries; torch's own
//! frames — autograd's engine, an optimizer's kernels — have no line a rule could point at) with the
//! computed region: what a training step runs, loss modules included, not only what Dynamo traced.
//! Then:
//! - each sync site lists the findings on its statement (`predicted_by`; empty: no rule saw it);
//! - each finding in a file with sync sites is `confirmed` when a sync happened on its statement in
//!   the profiled steps, with the syncs per step measured there;
//! - per side, the syncs per step the predicted sites account for, against all syncs per step.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::cross_check::Statements;
use super::html::escape;
use super::profile::{Profile, SyncSite};
use super::record::CaseResult;
pub use super::record_parts::{SyncCheck, SyncFindingCheck, SyncSideTotals, SyncSiteCheck};
use super::report::{location, show_path, write_case_heading};
use crate::diagnostics::Diagnostic;
use crate::rules::{self, Family};
use crate::scan;

/// Does a finding of `code` (with this message) predict a host-device sync on its line?
fn predicts_sync(code: &str, message: &str) -> bool {
    let Some(rule) = rules::by_code(code) else {
        return false;
    };
    // A branch on a tensor reads it on the host; one built on the host syncs nothing.
    (rule.family == Family::Sync || code == "BR001") && !message.contains("no device sync")
}

/// The sides of a profile with their sync sites.
fn sides(profile: &Profile) -> Vec<(&'static str, &super::profile::SideProfile)> {
    [
        ("eager", profile.eager.as_ref()),
        ("compiled", profile.compiled.as_ref()),
    ]
    .into_iter()
    .filter_map(|(name, side)| side.map(|s| (name, s)))
    .collect()
}

/// A site a rule could point at: a Python line outside torch itself.
fn scannable(site: &SyncSite) -> Option<(&str, u64)> {
    let (Some(filename), Some(line)) = (site.filename.as_deref(), site.line) else {
        return None;
    };
    // The harness keeps torch's innermost frame for syncs with no Python line of their own.
    if !site.in_user_code && site.via.is_none() {
        return None;
    }
    Some((filename, line))
}

/// The sync check of one profile (None: nothing was profiled on CUDA).
pub fn sync_check(profile: &Profile) -> Option<SyncCheck> {
    let sides = sides(profile);
    if sides.iter().all(|(_, side)| side.syncs_per_step.is_none()) {
        return None;
    }
    let files: BTreeSet<&str> = sides
        .iter()
        .flat_map(|(_, side)| side.sync_sites.iter())
        .filter_map(scannable)
        .map(|(file, _)| file)
        .filter(|file| Path::new(file).is_file())
        .collect();
    let (diagnostics, error) = match scan_directories(&files) {
        Ok(diagnostics) => (diagnostics, None),
        Err(error) => (Vec::new(), Some(error)),
    };
    let mut check = compare(&diagnostics, profile);
    check.error = error;
    Some(check)
}

/// Scans the directories holding the sync sites' files (their neighbours carry the facts a loss
/// needs: the matcher module beside it), computed region, and keeps the findings in those files.
fn scan_directories(files: &BTreeSet<&str>) -> Result<Vec<Diagnostic>, String> {
    let directories: BTreeSet<PathBuf> = files
        .iter()
        .filter_map(|file| Path::new(file).parent().map(Path::to_path_buf))
        .collect();
    if directories.is_empty() {
        return Ok(Vec::new());
    }
    let options = scan::ScanOptions {
        paths: directories.into_iter().collect(),
        no_config: true,
        ..Default::default()
    };
    let mut diagnostics = scan::run(&options)?.diagnostics;
    diagnostics.retain(|d| files.contains(d.path.to_string_lossy().as_ref()));
    Ok(diagnostics)
}

/// Pairs findings and sync sites by statement.
pub fn compare(diagnostics: &[Diagnostic], profile: &Profile) -> SyncCheck {
    let diagnostics: Vec<&Diagnostic> = diagnostics
        .iter()
        .filter(|d| predicts_sync(d.code, &d.message))
        .collect();
    let mut statements: HashMap<PathBuf, Statements> = HashMap::new();
    // Per finding: syncs per step seen on its statement, per side.
    let mut seen: Vec<BTreeMap<&str, f64>> = vec![BTreeMap::new(); diagnostics.len()];
    let mut sites = Vec::new();
    let mut totals = Vec::new();
    for (side_name, side) in sides(profile) {
        let mut side_totals = SyncSideTotals {
            side: side_name.to_owned(),
            syncs_per_step: side.syncs_per_step,
            ..SyncSideTotals::default()
        };
        for site in &side.sync_sites {
            let mut predicted_by = BTreeSet::new();
            let place = scannable(site);
            if let Some((filename, line)) = place {
                let path = PathBuf::from(filename);
                let file_statements = statements
                    .entry(path.clone())
                    .or_insert_with(|| Statements::parse(&path));
                let (first, last) = file_statements.statement_at(line as u32);
                for (index, diagnostic) in diagnostics.iter().enumerate() {
                    let (start, end) = (diagnostic.location.row, diagnostic.end_location.row);
                    if diagnostic.path != path || end < first || start > last {
                        continue;
                    }
                    predicted_by.insert(diagnostic.code.to_owned());
                    *seen[index].entry(side_name).or_default() += site.per_step;
                }
            }
            side_totals.listed_per_step += site.per_step;
            if !predicted_by.is_empty() {
                side_totals.predicted_per_step += site.per_step;
            }
            sites.push(SyncSiteCheck {
                side: side_name.to_owned(),
                filename: site.filename.clone(),
                line: site.line,
                phase: site.phase.clone(),
                code: site.code.clone(),
                per_step: site.per_step,
                scanned: place.is_some(),
                predicted_by: predicted_by.into_iter().collect(),
            });
        }
        totals.push(side_totals);
    }
    let findings = diagnostics
        .iter()
        .zip(&seen)
        .map(|(diagnostic, per_side)| {
            let per_step = per_side
                .get("eager")
                .or_else(|| per_side.get("compiled"))
                .copied()
                .unwrap_or(0.0);
            SyncFindingCheck {
                code: diagnostic.code.to_owned(),
                filename: diagnostic.path.display().to_string(),
                line: diagnostic.location.row,
                end_line: diagnostic.end_location.row,
                message: diagnostic.message.clone(),
                confirmed: !per_side.is_empty(),
                per_step,
            }
        })
        .collect();
    SyncCheck {
        sites,
        findings,
        sides: totals,
        error: None,
    }
}

/// Adds `sync_check` to a result with a CUDA profile (its sync sites).
pub fn attach(result: &mut CaseResult) {
    if let Some(profile) = &result.profile {
        result.sync_check = sync_check(profile);
    }
}

// ----- rendering --------------------------------------------------------------------------------

fn share(part: f64, whole: Option<f64>) -> String {
    match whole {
        Some(whole) if whole > 0.0 => format!("{:.0}%", 100.0 * part / whole),
        _ => "n/a".to_owned(),
    }
}

fn site_line(site: &SyncSiteCheck, cwd: &Path) -> String {
    let place = location(site.filename.as_deref(), site.line, cwd)
        .unwrap_or_else(|| "<no Python line>".to_owned());
    let phase = site
        .phase
        .as_deref()
        .map(|p| format!(" [{p}]"))
        .unwrap_or_default();
    let code = if site.code.is_empty() {
        String::new()
    } else {
        format!(" `{}`", super::report::clip(&site.code, 90))
    };
    let verdict = if !site.scanned {
        "inside torch (no line a rule can point at)".to_owned()
    } else if site.predicted_by.is_empty() {
        "NOT PREDICTED".to_owned()
    } else {
        format!("predicted by {}", site.predicted_by.join(", "))
    };
    format!(
        "{place}: {:.1}/step{phase}{code} — {verdict}",
        site.per_step
    )
}

fn totals_line(check: &SyncCheck) -> String {
    let sides: Vec<String> = check
        .sides
        .iter()
        .map(|side| {
            format!(
                "{} {:.1} of {} syncs/step ({})",
                side.side,
                side.predicted_per_step,
                side.syncs_per_step
                    .map_or("?".to_owned(), |n| format!("{n:.1}")),
                share(side.predicted_per_step, side.syncs_per_step)
            )
        })
        .collect();
    let confirmed = check.findings.iter().filter(|f| f.confirmed).count();
    format!(
        "syncs predicted by scan: {} · sync findings confirmed: {confirmed} of {}",
        sides.join(", "),
        check.findings.len()
    )
}

fn unconfirmed_line(finding: &SyncFindingCheck, cwd: &Path) -> String {
    format!(
        "{}:{}: {} not confirmed: no sync on its statement in the profiled steps",
        show_path(&finding.filename, cwd),
        finding.line,
        finding.code
    )
}

/// The results that carry a sync cross-check, each with it: what every renderer below walks.
fn checks_of(results: &[CaseResult]) -> Vec<(&CaseResult, &SyncCheck)> {
    results
        .iter()
        .filter_map(|r| r.sync_check.as_ref().map(|c| (r, c)))
        .collect()
}

/// The text report's sync section: per case, each sync site with its verdict, the findings no
/// sync confirmed, and the share of syncs per step predicted. Empty when no result has one.
pub fn render_text(results: &[CaseResult], cwd: &Path) -> String {
    let checks = checks_of(results);
    if checks.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("\nsync cross-check (static scan vs the syncs --profile measured):\n");
    for (result, check) in checks {
        write_case_heading(&mut out, result, check.error.as_deref());
        for site in &check.sites {
            let _ = writeln!(out, "  {} {}", site.side, site_line(site, cwd));
        }
        for finding in check.findings.iter().filter(|f| !f.confirmed) {
            let _ = writeln!(out, "  {}", unconfirmed_line(finding, cwd));
        }
        let _ = writeln!(out, "  {}", totals_line(check));
    }
    out
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The markdown report's sync section (same facts as the text one).
pub fn render_markdown(results: &[CaseResult], cwd: &Path) -> String {
    let checks = checks_of(results);
    if checks.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n#### Sync cross-check: static scan vs the syncs `--profile` measured\n\n| case | side | sync site — prediction |\n|---|---|---|\n",
    );
    for (result, check) in &checks {
        for site in &check.sites {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                cell(result.case.as_deref().unwrap_or("?")),
                site.side,
                cell(&site_line(site, cwd))
            );
        }
    }
    out.push('\n');
    for (result, check) in &checks {
        let _ = writeln!(
            out,
            "`{}`: {}\n",
            cell(result.case.as_deref().unwrap_or("?")),
            cell(&totals_line(check))
        );
        for finding in check.findings.iter().filter(|f| !f.confirmed) {
            let _ = writeln!(out, "- {}", cell(&unconfirmed_line(finding, cwd)));
        }
    }
    out
}

/// The HTML report's sync section (same facts); empty when no result has one.
pub fn render_html(results: &[CaseResult], cwd: &Path) -> String {
    let checks = checks_of(results);
    if checks.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section id=\"sync-check\">\n<h2>Sync cross-check: static scan vs the syncs --profile measured</h2>\n",
    );
    for (result, check) in checks {
        let _ = writeln!(
            out,
            "<article>\n<h3>{} · torch {}</h3>\n<p>{}</p>",
            escape(result.case.as_deref().unwrap_or("?")),
            escape(result.torch_version.as_deref().unwrap_or("-")),
            escape(&totals_line(check))
        );
        if let Some(error) = &check.error {
            let _ = writeln!(
                out,
                "<p class=\"regression\">scan failed: {}</p>",
                escape(error)
            );
        }
        out.push_str("<ul>\n");
        for site in &check.sites {
            let class = if !site.scanned {
                "muted"
            } else if site.predicted_by.is_empty() {
                "regression"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "<li class=\"{class}\">{} {}</li>",
                escape(&site.side),
                escape(&site_line(site, cwd))
            );
        }
        for finding in check.findings.iter().filter(|f| !f.confirmed) {
            let _ = writeln!(
                out,
                "<li class=\"muted\">{}</li>",
                escape(&unconfirmed_line(finding, cwd))
            );
        }
        out.push_str("</ul>\n</article>\n");
    }
    out.push_str("</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A step's loss: a host-index gather per image (predicted by SY003), a `.item()` (SY002), a
    /// truth test on a device tensor (BR001), a sync no rule predicts (a `torch.nonzero`), and
    /// autograd's sync with no Python line.
    const LOSS: &str = "\
import numpy as np
import torch
from torch import nn


class Loss(nn.Module):
    def forward(self, logits, targets):
        keep = np.arange(2)
        picked = logits[keep]
        if (picked > 0).all():
            picked = picked * 2
        total = picked.sum().item()
        nz = torch.nonzero(logits)
        return picked.mean() + total + nz.shape[0]
";

    fn profile(path: &Path) -> Profile {
        let file = path.display().to_string();
        let sites = json!([
            {"filename": file, "line": 9, "function": "forward", "code": "picked = logits[keep]",
             "phase": "loss", "per_step": 2.0, "in_user_code": true, "via": null},
            {"filename": file, "line": 10, "function": "forward", "code": "if (picked > 0).all():",
             "phase": "loss", "per_step": 1.0, "in_user_code": true, "via": null},
            {"filename": file, "line": 13, "function": "forward", "code": "nz = torch.nonzero(logits)",
             "phase": "loss", "per_step": 1.0, "in_user_code": true, "via": null},
            {"filename": "/venv/lib/python3.12/site-packages/torch/autograd/graph.py", "line": 869,
             "function": "_engine_run_backward", "code": "return Variable._execution_engine.run_backward(",
             "phase": "backward", "per_step": 3.0, "in_user_code": false, "via": null},
        ]);
        serde_json::from_value(json!({
            "device": "cuda", "steps": 10, "unavailable": null, "optimizer": true,
            "eager": {"step_ms": 10.0, "phases": [], "syncs_per_step": 7.0, "sync_sites": sites.clone(),
                      "sync_sites_total": 4},
            "compiled": {"step_ms": 9.0, "phases": [], "syncs_per_step": 7.0, "sync_sites": sites,
                         "sync_sites_total": 4},
        }))
        .unwrap()
    }

    #[test]
    fn sync_sites_are_matched_to_sync_findings_by_statement() {
        let dir = tempfile::tempdir().unwrap();
        let path = crate::scan::discover::absolute(&dir.path().join("loss.py"));
        std::fs::write(&path, LOSS).unwrap();
        let check = sync_check(&profile(&path)).expect("a CUDA profile is checked");
        assert_eq!(check.error, None);
        let eager: Vec<(Option<u64>, bool, Vec<&str>)> = check
            .sites
            .iter()
            .filter(|s| s.side == "eager")
            .map(|s| {
                (
                    s.line,
                    s.scanned,
                    s.predicted_by.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            eager,
            [
                (Some(9), true, vec!["SY003"]),
                (Some(10), true, vec!["BR001"]),
                (Some(13), true, vec![]),
                (Some(869), false, vec![]),
            ]
        );
        // The `.item()` at line 12 synced nowhere in this (recorded) profile: not confirmed.
        let findings: Vec<(&str, u32, bool, f64)> = check
            .findings
            .iter()
            .map(|f| (f.code.as_str(), f.line, f.confirmed, f.per_step))
            .collect();
        assert_eq!(
            findings,
            [
                ("SY003", 9, true, 2.0),
                ("BR001", 10, true, 1.0),
                ("SY002", 12, false, 0.0)
            ]
        );
        assert_eq!(check.sides[0].predicted_per_step, 3.0);
        assert_eq!(check.sides[0].syncs_per_step, Some(7.0));
        let text = totals_line(&check);
        assert!(
            text.starts_with("syncs predicted by scan: eager 3.0 of 7.0 syncs/step (43%)"),
            "{text}"
        );
    }

    #[test]
    fn a_cpu_profile_has_no_sync_check() {
        let profile: Profile = serde_json::from_value(json!({
            "device": "cpu", "steps": 3,
            "unavailable": "kernels, GPU busy share and host-device syncs need CUDA (device cpu): only the phase split was measured",
            "eager": {"step_ms": 1.0, "phases": [], "syncs_per_step": null, "sync_sites": []},
            "compiled": {"step_ms": 1.0, "phases": [], "syncs_per_step": null, "sync_sites": []},
        }))
        .unwrap();
        assert_eq!(sync_check(&profile), None);
    }
}
