//! `torch.cond` branches (`Project::cond_branches`): Dynamo traces each branch as one graph, even
//! when the cond is called eagerly, so a branch is a root (fullgraph-like: a scalar read there is
//! captured on torch 2.11, `rules/data/scalar_reads.toml`) and a break inside one is reported as
//! what it is — the `torch.cond` call raises. corpus/reach/cond_branches marks each such line
//! `# cond-break:`; tests/python/test_cond_branch_proofs.py shows each raises under real Dynamo.

mod common;

use std::path::{Path, PathBuf};

use common::scan_findings;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/cond_branches")
}

fn marked_rows() -> Vec<u64> {
    let source = std::fs::read_to_string(fixture().join("cond_gates/gates.py")).unwrap();
    source
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains("# cond-break:"))
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

#[test]
fn every_break_in_a_cond_branch_says_the_cond_raises() {
    let findings = scan_findings(&fixture(), &[]);
    let mut rows: Vec<u64> = findings
        .iter()
        .filter(|f| {
            f["message"].as_str().is_some_and(|m| {
                m.contains("`torch.cond` call raises UncapturedHigherOrderOpError")
            })
        })
        .map(|f| f["location"]["row"].as_u64().unwrap())
        .collect();
    rows.sort_unstable();
    assert_eq!(rows, marked_rows(), "{findings:#?}");
    // The branch of an eagerly called cond is reached (a root of its own).
    assert!(rows.contains(&35));
}

#[test]
fn a_scalar_read_in_an_eager_cond_branch_is_captured_on_torch_2_11() {
    let dir = tempfile::tempdir().unwrap();
    common::write(
        dir.path(),
        "gate.py",
        "import torch\n\nLIMIT = torch.tensor([3.0])\n\n\ndef scaled(x):\n    return x * LIMIT.item()\n\n\ndef smaller(x):\n    return x - 1\n\n\ndef gate(p, x):\n    return torch.cond(p, scaled, smaller, (x,))\n",
    );
    let findings = scan_findings(dir.path(), &["--torch-version", "2.11"]);
    let item = findings
        .iter()
        .find(|f| f["code"] == "SY002")
        .unwrap_or_else(|| panic!("{findings:#?}"));
    let message = item["message"].as_str().unwrap();
    assert!(message.contains("no graph break"), "{message}");
    assert!(!message.contains("raises"), "{message}");
}
