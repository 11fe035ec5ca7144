//! `check --profile`: where a case's step time goes, as the harness measured it (docs/check-protocol.md,
//! "profile"). Per side (eager, compiled): mean step ms and its split into forward, loss, backward and
//! optimizer; on CUDA also kernels and copies per step, the share of the step the GPU is busy, and
//! host-device syncs per step with the lines that cause them. This module reads that record and renders
//! the report lines, calling out host-bound steps (the GPU idles while Python launches and waits).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::report::clip;

/// The harness's `profile` object. Every figure is optional: a torch without the profiler, a side
/// that failed, or a CPU run leaves it null.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Profile {
    pub device: Option<String>,
    pub steps: Option<u32>,
    /// Why kernels, busy share and syncs are missing (no CUDA); null on CUDA.
    pub unavailable: Option<String>,
    /// The case's optimizer stepped in the profiled steps (an `optimizer` phase exists).
    pub optimizer: Option<bool>,
    pub eager: Option<SideProfile>,
    pub compiled: Option<SideProfile>,
    /// Keys this build does not know (another harness version): kept as they are.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct SideProfile {
    /// Mean ms per step (CUDA events on GPU, perf_counter on CPU) over the phase pass.
    pub step_ms: Option<f64>,
    pub phases: Vec<PhaseTime>,
    pub kernels_per_step: Option<f64>,
    /// Device memcpy and memset activities per step.
    pub copies_per_step: Option<f64>,
    pub gpu_busy_ms_per_step: Option<f64>,
    /// Mean ms per step under torch.profiler (its host overhead slows host-bound steps).
    pub profiled_step_ms: Option<f64>,
    /// Busy GPU time (union of device activity) / the unprofiled step (`step_ms`), 0..1.
    pub gpu_busy_share: Option<f64>,
    /// Busy GPU time / the profiled step: what torch.profiler's own timeline shows.
    pub gpu_busy_share_profiled: Option<f64>,
    pub mean_kernel_us: Option<f64>,
    pub syncs_per_step: Option<f64>,
    /// The lines causing the most syncs, most first (the harness keeps the top ones).
    pub sync_sites: Vec<SyncSite>,
    /// Distinct (line, phase) sites seen, kept or not.
    pub sync_sites_total: Option<u64>,
    pub host_bound: Option<bool>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct PhaseTime {
    pub name: String,
    pub ms: f64,
    pub share: Option<f64>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct SyncSite {
    pub filename: Option<String>,
    pub line: Option<u64>,
    pub function: Option<String>,
    /// The source line, stripped.
    pub code: String,
    /// forward | loss | backward | optimizer
    pub phase: Option<String>,
    pub per_step: f64,
    pub in_user_code: bool,
    /// For a line in a model library: the user's line (file:line) that led there.
    pub via: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

const SHOWN_SYNC_SITES: usize = 5;

/// The report lines for one result's profile (text and markdown details); empty when not profiled.
pub fn report_lines(profile: Option<&Profile>, cwd: &Path) -> Vec<String> {
    profile.map_or_else(Vec::new, |profile| render(profile, cwd))
}

fn render(profile: &Profile, cwd: &Path) -> Vec<String> {
    let sides: Vec<(&str, &SideProfile)> = [
        ("eager", profile.eager.as_ref()),
        ("compiled", profile.compiled.as_ref()),
    ]
    .into_iter()
    .filter_map(|(name, side)| side.map(|s| (name, s)))
    .collect();
    let mut lines = Vec::new();
    let names: Vec<&str> = sides.iter().map(|(name, _)| *name).collect();
    lines.push(format!(
        "profile ({}, {} steps per pass; {}):",
        profile.device.as_deref().unwrap_or("?"),
        profile
            .steps
            .map_or("?".to_owned(), |steps| steps.to_string()),
        if names.is_empty() {
            "no side profiled".to_owned()
        } else {
            names.join(" → ")
        }
    ));
    if let Some(why) = &profile.unavailable {
        lines.push(format!("  note: {why}"));
    }
    if sides.is_empty() {
        return lines;
    }
    let figures: Vec<String> = [
        figure_row(&sides, "step", |s| {
            s.step_ms.map(|ms| format!("{ms:.2} ms"))
        }),
        figure_row(&sides, "kernels/step", |s| {
            s.kernels_per_step.map(|k| format!("{k:.0}"))
        }),
        figure_row(&sides, "GPU busy", |s| {
            s.gpu_busy_share
                .map(|share| format!("{:.0}%", share * 100.0))
        }),
        figure_row(&sides, "syncs/step", |s| {
            s.syncs_per_step.map(|n| format!("{n:.1}"))
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !figures.is_empty() {
        lines.push(format!("  {}", figures.join(" · ")));
    }
    let under_profiler: Vec<String> = [
        figure_row(&sides, "step", |s| {
            s.profiled_step_ms.map(|ms| format!("{ms:.2} ms"))
        }),
        figure_row(&sides, "GPU busy", |s| {
            s.gpu_busy_share_profiled
                .map(|share| format!("{:.0}%", share * 100.0))
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !under_profiler.is_empty() {
        lines.push(format!(
            "  under torch.profiler (its own host overhead): {}",
            under_profiler.join(" · ")
        ));
    }
    for (name, side) in &sides {
        if side.phases.is_empty() {
            continue;
        }
        let parts: Vec<String> = side
            .phases
            .iter()
            .map(|phase| match phase.share {
                Some(share) => format!("{} {:.2} ms ({:.0}%)", phase.name, phase.ms, share * 100.0),
                None => format!("{} {:.2} ms", phase.name, phase.ms),
            })
            .collect();
        lines.push(format!("  phases {name}: {}", parts.join(" · ")));
    }
    for (name, side) in &sides {
        if let Some(callout) = host_bound_callout(name, side) {
            lines.push(format!("  {callout}"));
        }
    }
    let mut shown_eager_sites: Option<&[SyncSite]> = None;
    for (name, side) in &sides {
        let Some(syncs) = side.syncs_per_step.filter(|n| *n > 0.0) else {
            continue;
        };
        if *name == "compiled" && shown_eager_sites == Some(side.sync_sites.as_slice()) {
            lines.push(format!(
                "  syncs {name}: {syncs:.1}/step at the same lines as eager"
            ));
            continue;
        }
        lines.push(format!("  syncs {name}: {syncs:.1}/step, top lines:"));
        for site in side.sync_sites.iter().take(SHOWN_SYNC_SITES) {
            lines.push(format!("    {}", sync_site_line(site, cwd)));
        }
        let more = side
            .sync_sites_total
            .map_or(0, |total| total as usize)
            .saturating_sub(SHOWN_SYNC_SITES.min(side.sync_sites.len()));
        if more > 0 {
            lines.push(format!(
                "    … {more} more line(s) (sync_sites in the JSON report)"
            ));
        }
        if *name == "eager" {
            shown_eager_sites = Some(side.sync_sites.as_slice());
        }
    }
    lines
}

/// `label a → b` over the sides that have the figure; `None` when none has it.
fn figure_row(
    sides: &[(&str, &SideProfile)],
    label: &str,
    figure: impl Fn(&SideProfile) -> Option<String>,
) -> Option<String> {
    let values: Vec<String> = sides
        .iter()
        .map(|(_, side)| figure(side).unwrap_or_else(|| "-".to_owned()))
        .collect();
    if values.iter().all(|v| v == "-") {
        return None;
    }
    Some(format!("{label} {}", values.join(" → ")))
}

/// A step whose GPU idles most of the time: more GPU work per step will not slow it, fewer launches
/// and syncs will speed it up.
fn host_bound_callout(name: &str, side: &SideProfile) -> Option<String> {
    if side.host_bound != Some(true) {
        return None;
    }
    let mut text = format!(
        "HOST-BOUND ({name}): the GPU is busy {:.0}% of the step",
        side.gpu_busy_share.unwrap_or(0.0) * 100.0
    );
    let mut why = Vec::new();
    if let Some(kernels) = side.kernels_per_step {
        match side.mean_kernel_us {
            Some(us) => why.push(format!(
                "{kernels:.0} kernels/step of {us:.1} µs on average"
            )),
            None => why.push(format!("{kernels:.0} kernels/step")),
        }
    }
    if let Some(syncs) = side.syncs_per_step.filter(|n| *n > 0.0) {
        why.push(format!("{syncs:.1} host-device syncs/step"));
    }
    if !why.is_empty() {
        let _ = write!(text, " ({})", why.join(", "));
    }
    text.push_str(
        ": Python, kernel launches and syncs set the pace, not GPU work (fewer, larger kernels: \
         compile, CUDA graphs; remove the syncs)",
    );
    Some(text)
}

fn sync_site_line(site: &SyncSite, cwd: &Path) -> String {
    let place = match (&site.filename, site.line) {
        (Some(file), Some(line)) => format!("{}:{line}", short_path(file, cwd)),
        (Some(file), None) => short_path(file, cwd),
        _ => "<unknown>".to_owned(),
    };
    let phase = site
        .phase
        .as_deref()
        .map(|p| format!(" [{p}]"))
        .unwrap_or_default();
    let via = site
        .via
        .as_deref()
        .map(|v| format!(" (via {})", short_via(v, cwd)))
        .unwrap_or_default();
    let outside = if site.in_user_code || site.via.is_some() {
        ""
    } else if site.filename.is_some() {
        " (inside torch)"
    } else {
        ""
    };
    let code = if site.code.is_empty() {
        String::new()
    } else {
        format!(": {}", clip(&site.code, 120))
    };
    format!(
        "{:>6.1}/step{phase} {place}{via}{outside}{code}",
        site.per_step
    )
}

/// A library file from its package on (`transformers/loss/x.py`, even in a venv under `cwd`); else
/// relative to `cwd` when under it.
fn short_path(path: &str, cwd: &Path) -> String {
    for marker in ["/site-packages/", "/dist-packages/"] {
        if let Some(index) = path.rfind(marker) {
            return path[index + marker.len()..].to_owned();
        }
    }
    match Path::new(path).strip_prefix(cwd) {
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.to_owned(),
    }
}

/// `file:line` with the file shortened like `short_path`.
fn short_via(via: &str, cwd: &Path) -> String {
    match via.rsplit_once(':') {
        Some((file, line)) if line.chars().all(|c| c.is_ascii_digit()) => {
            format!("{}:{line}", short_path(file, cwd))
        }
        _ => via.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn side(busy: f64, syncs: f64, sites: Value) -> Value {
        json!({
            "step_ms": 40.0, "kernels_per_step": 1840.0, "copies_per_step": 12.0, "gpu_busy_ms_per_step": 9.2,
            "profiled_step_ms": 60.0, "gpu_busy_share": busy, "gpu_busy_share_profiled": busy / 2.0, "mean_kernel_us": 5.0, "syncs_per_step": syncs,
            "sync_sites": sites, "sync_sites_total": 7, "host_bound": busy < 0.5,
            "phases": [{"name": "forward", "ms": 10.0, "share": 0.25}, {"name": "loss", "ms": 30.0, "share": 0.75}],
        })
    }

    #[test]
    fn host_bound_steps_are_called_out_with_their_sync_lines() {
        let sites = json!([
            {"filename": "/p/venv/lib/python3.12/site-packages/transformers/loss/l.py", "line": 131,
             "function": "loss_labels", "code": "target = torch.cat([t[J] for t in targets])", "phase": "loss",
             "per_step": 12.0, "in_user_code": false, "via": "/p/cases/detr.py:80"},
            {"filename": "/p/cases/detr.py", "line": 40, "function": "forward", "code": "x.item()",
             "phase": "forward", "per_step": 1.0, "in_user_code": true, "via": null},
        ]);
        let profile: Profile = serde_json::from_value(json!({
            "device": "cuda", "steps": 10, "unavailable": null, "optimizer": true,
            "eager": side(0.23, 92.0, sites.clone()), "compiled": side(0.6, 92.0, sites),
        }))
        .unwrap();
        let lines = report_lines(Some(&profile), Path::new("/p"));
        assert_eq!(
            lines[0],
            "profile (cuda, 10 steps per pass; eager → compiled):"
        );
        assert_eq!(
            lines[1],
            "  step 40.00 ms → 40.00 ms · kernels/step 1840 → 1840 · GPU busy 23% → 60% · syncs/step 92.0 → 92.0"
        );
        assert_eq!(
            lines[2],
            "  under torch.profiler (its own host overhead): step 60.00 ms → 60.00 ms · GPU busy 12% → 30%"
        );
        assert_eq!(
            lines[3],
            "  phases eager: forward 10.00 ms (25%) · loss 30.00 ms (75%)"
        );
        assert!(
            lines[5].starts_with(
                "  HOST-BOUND (eager): the GPU is busy 23% of the step (1840 kernels/step of 5.0 µs on average, 92.0 host-device syncs/step)"
            ),
            "{}",
            lines[5]
        );
        assert!(!lines.iter().any(|l| l.contains("HOST-BOUND (compiled)")));
        assert_eq!(lines[6], "  syncs eager: 92.0/step, top lines:");
        assert_eq!(
            lines[7],
            "      12.0/step [loss] transformers/loss/l.py:131 (via cases/detr.py:80): target = torch.cat([t[J] for t in targets])"
        );
        assert_eq!(
            lines[8],
            "       1.0/step [forward] cases/detr.py:40: x.item()"
        );
        assert_eq!(
            lines[9],
            "    … 5 more line(s) (sync_sites in the JSON report)"
        );
        assert_eq!(
            lines[10],
            "  syncs compiled: 92.0/step at the same lines as eager"
        );
    }

    #[test]
    fn cpu_profile_says_what_needs_cuda_and_shows_the_phase_split() {
        let profile: Profile = serde_json::from_value(json!({
            "device": "cpu", "steps": 3, "optimizer": false,
            "unavailable": "kernels, GPU busy share and host-device syncs need CUDA (device cpu): only the phase split was measured",
            "eager": {"step_ms": 2.0, "phases": [{"name": "forward", "ms": 2.0, "share": 1.0}]},
            "compiled": null,
        }))
        .unwrap();
        let lines = report_lines(Some(&profile), Path::new("/"));
        assert_eq!(lines[0], "profile (cpu, 3 steps per pass; eager):");
        assert!(lines[1].contains("need CUDA"));
        assert_eq!(lines[2], "  step 2.00 ms");
        assert_eq!(lines[3], "  phases eager: forward 2.00 ms (100%)");
        assert_eq!(lines.len(), 4);
    }

    #[test]
    fn unprofiled_results_render_nothing_and_unknown_keys_survive_a_round_trip() {
        assert!(report_lines(None, Path::new("/")).is_empty());
        let written = json!({"device": "cuda", "steps": 2, "future_field": [1, 2],
                             "eager": {"step_ms": 1.0, "phases": [], "sync_sites": [], "new_figure": 3.5}});
        let profile: Profile = serde_json::from_value(written.clone()).unwrap();
        let again = serde_json::to_value(&profile).unwrap();
        assert_eq!(again["future_field"], written["future_field"]);
        assert_eq!(again["eager"]["new_figure"], written["eager"]["new_figure"]);
    }
}
