//! Syncs cross-checked like breaks, end to end with the real binary: a recorded `--profile` result (the
//! harness's `sync_sites` shape, as an H200 run writes it) over a loss file, re-checked with `recheck`, then
//! rendered by `report merge` as JSON, text, markdown and HTML. The CUDA half — the harness measuring those
//! sites — is tests/python/test_profile.py's and the GPU script's (docs/profile.md); the rules' own sync
//! claims are proven by tests/python/test_sync_proofs.py.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

const BINARY: &str = env!("CARGO_BIN_EXE_graphbreak");

/// A set-prediction loss: host indices from a matcher module injected by the constructor gather the
/// targets per image (SY003), a count built from Python data (SY004), and a sync no rule predicts.
const LOSS: &str = "\
import numpy as np
import torch
from torch import nn


class Matcher(nn.Module):
    def forward(self, logits, targets):
        cost = logits.softmax(-1).cpu().numpy()
        return [(torch.as_tensor(np.argsort(c[:, 0])[:2]), torch.as_tensor(np.arange(2))) for c in cost]


class Loss(nn.Module):
    def __init__(self, matcher):
        super().__init__()
        self.matcher = matcher

    def forward(self, logits, targets):
        indices = self.matcher(logits, targets)
        labels = torch.cat([t[j] for t, (_, j) in zip(targets, indices)])
        count = torch.as_tensor([len(t) for t in targets], device=logits.device)
        nz = torch.nonzero(labels)
        return labels.float().mean() + count.sum() + nz.shape[0]
";

fn site(file: &str, line: u64, code: &str, per_step: f64) -> Value {
    json!({"filename": file, "line": line, "function": "forward", "code": code, "phase": "loss",
           "per_step": per_step, "in_user_code": true, "via": null})
}

fn recorded_report(loss: &Path) -> Value {
    let file = loss.display().to_string();
    let sites = json!([
        site(&file, 19, "labels = torch.cat([t[j] for t, (_, j) in zip(targets, indices)])", 2.0),
        site(&file, 8, "cost = logits.softmax(-1).cpu().numpy()", 1.0),
        site(&file, 20, "count = torch.as_tensor([len(t) for t in targets], device=logits.device)", 1.0),
        site(&file, 21, "nz = torch.nonzero(labels)", 1.0),
        {"filename": "/venv/lib/python3.12/site-packages/torch/autograd/graph.py", "line": 869,
         "function": "_engine_run_backward", "code": "return Variable._execution_engine.run_backward(",
         "phase": "backward", "per_step": 2.0, "in_user_code": false, "via": null},
    ]);
    let side = json!({"step_ms": 12.0, "phases": [], "kernels_per_step": 300.0, "gpu_busy_share": 0.2,
                      "syncs_per_step": 7.0, "sync_sites": sites, "sync_sites_total": 5, "host_bound": true});
    json!({"results": [{
        "schema_version": 1, "case": "loss.py::case_step", "torch_version": "2.11.0", "device": "cuda",
        "status": "ok",
        "profile": {"device": "cuda", "steps": 10, "unavailable": null, "optimizer": true,
                    "eager": side.clone(), "compiled": side},
    }]})
}

fn run(cwd: &Path, args: &[&str]) -> std::process::Output {
    common::output_echoed(
        Command::new(BINARY).args(args).current_dir(cwd),
        &args.join(" "),
    )
}

#[test]
fn recorded_sync_sites_are_matched_to_sync_findings_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("project");
    std::fs::create_dir(&project).unwrap();
    let loss = project.join("loss.py");
    std::fs::write(&loss, LOSS).unwrap();
    let report = root.join("report.json");
    std::fs::write(&report, recorded_report(&loss).to_string()).unwrap();
    let rechecked = root.join("rechecked.json");
    let output = run(
        &root,
        &[
            "recheck",
            report.to_str().unwrap(),
            "--output",
            rechecked.to_str().unwrap(),
        ],
    );
    assert!(output.status.success());

    let document: Value =
        serde_json::from_str(&std::fs::read_to_string(&rechecked).unwrap()).unwrap();
    let check = &document["results"][0]["sync_check"];
    let eager: Vec<(u64, Vec<&str>, bool)> = check["sites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["side"] == "eager")
        .map(|s| {
            (
                s["line"].as_u64().unwrap(),
                s["predicted_by"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap())
                    .collect(),
                s["scanned"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        eager,
        [
            (19, vec!["SY003"], true),
            (8, vec!["SY002"], true),
            (20, vec!["SY004"], true),
            (21, vec![], true),
            (869, vec![], false),
        ]
    );
    let confirmed: Vec<(&str, u64, bool)> = check["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap(),
                f["line"].as_u64().unwrap(),
                f["confirmed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        confirmed,
        [("SY002", 8, true), ("SY003", 19, true), ("SY004", 20, true)]
    );
    assert_eq!(check["sides"][0]["predicted_per_step"], 4.0);
    assert_eq!(check["sides"][0]["syncs_per_step"], 7.0);

    for (format, expected) in [
        (
            "text",
            "syncs predicted by scan: eager 4.0 of 7.0 syncs/step (57%)",
        ),
        ("markdown", "#### Sync cross-check"),
        ("html", "<section id=\"sync-check\">"),
    ] {
        let output = run(
            &root,
            &[
                "report",
                "merge",
                rechecked.to_str().unwrap(),
                "--output-format",
                format,
            ],
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains(expected), "{format}: {stdout}");
        assert!(
            stdout.contains("NOT PREDICTED"),
            "{format}: the unpredicted nonzero sync is listed"
        );
    }
}
