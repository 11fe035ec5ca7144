//! `scan --write-baseline` / `--baseline` on a real git project edited the way people edit code:
//! unrelated edits that shift lines keep old findings baselined, new hazards (even a copy of a
//! baselined line) fail the run, and a fixed finding leaves the baseline when it is rewritten.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{graphbreak, text};

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .expect("git is installed (the test needs real git)");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

const MODELS: &str = r#"import torch
from torch import nn


class NanSafe(nn.Module):
    def forward(self, x):
        if torch.isnan(x).any():
            x = torch.nan_to_num(x)
        return x


class Scalar(nn.Module):
    def forward(self, x):
        return x.sum().item()


class AlsoNanSafe(nn.Module):
    def forward(self, x):
        if torch.isnan(x).any():
            x = torch.nan_to_num(x)
        return x
"#;

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(root.join("pkg/models.py"), MODELS).unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"demo\"\nversion = \"0.1\"\n",
    )
    .unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "initial"]);
    (dir, root)
}

fn baseline_entries(path: &Path) -> Vec<Value> {
    let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    document["findings"].as_array().unwrap().clone()
}

fn codes_and_lines(output: &Output) -> Vec<(String, u64)> {
    let items: Value = serde_json::from_slice(&output.stdout).expect("json output");
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["location"]["row"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `scan --baseline graphbreak-baseline.json --output-format json` at the project root.
fn scan_json_against_baseline(root: &Path) -> Output {
    graphbreak(
        root,
        &[
            "scan",
            "--baseline",
            "graphbreak-baseline.json",
            "--output-format",
            "json",
        ],
    )
}

fn edit(root: &Path, change: impl FnOnce(&str) -> String, message: &str) {
    let path = root.join("pkg/models.py");
    let before = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, change(&before)).unwrap();
    git(root, &["commit", "-q", "-am", message]);
}

#[test]
fn baseline_survives_shifted_lines_and_fails_only_on_new_findings() {
    let (_guard, root) = project();
    let recorded = graphbreak(
        &root,
        &["scan", "--write-baseline", "graphbreak-baseline.json"],
    );
    assert_eq!(recorded.status.code(), Some(0), "{}", text(&recorded));
    let entries = baseline_entries(&root.join("graphbreak-baseline.json"));
    assert_eq!(entries.len(), 3, "{entries:#?}");
    // The two identical `if` lines are told apart by their occurrence index.
    let occurrences: Vec<u64> = entries
        .iter()
        .filter(|e| e["code"] == "BR001")
        .map(|e| e["occurrence"].as_u64().unwrap())
        .collect();
    assert_eq!(occurrences, [0, 1]);
    assert!(entries.iter().all(|e| e["path"] == "pkg/models.py"));
    git(&root, &["add", "graphbreak-baseline.json"]);
    git(&root, &["commit", "-q", "-m", "baseline"]);

    let clean = graphbreak(&root, &["scan", "--baseline", "graphbreak-baseline.json"]);
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean));
    assert!(
        String::from_utf8_lossy(&clean.stdout).contains("3 more in the baseline"),
        "{}",
        text(&clean)
    );

    // Unrelated edits: a docstring and imports at the top shift every line; a statement is
    // re-indented inside a new block. Nothing new.
    edit(
        &root,
        |s| {
            format!(
                "\"\"\"Models.\n\nLonger description.\n\"\"\"\n\nimport math\nimport os\n\n{}",
                s.replace(
                    "        return x.sum().item()\n",
                    "        with torch.no_grad():\n            return   x.sum().item()\n",
                )
            )
        },
        "docstring, imports, a with-block",
    );
    let shifted = scan_json_against_baseline(&root);
    assert_eq!(shifted.status.code(), Some(0), "{}", text(&shifted));
    assert_eq!(codes_and_lines(&shifted), []);
    // Without the baseline the same findings are there, on their new lines.
    let all = graphbreak(&root, &["scan", "--output-format", "json"]);
    assert_eq!(
        codes_and_lines(&all),
        [
            ("BR001".to_owned(), 15),
            ("SY002".to_owned(), 23),
            ("BR001".to_owned(), 28)
        ]
    );

    // A new hazard, and a third copy of a baselined line: both are new.
    edit(
        &root,
        |s| {
            format!(
                "{s}\n\nclass ThirdNanSafe(nn.Module):\n    def forward(self, x):\n        if torch.isnan(x).any():\n            x = torch.nan_to_num(x)\n        return x.max().item() + x.min().item()\n"
            )
        },
        "two new modules",
    );
    let new = scan_json_against_baseline(&root);
    assert_eq!(new.status.code(), Some(1), "{}", text(&new));
    assert_eq!(
        codes_and_lines(&new),
        [
            ("BR001".to_owned(), 35),
            // Two `.item()` reads in one statement are one finding (one per statement per rule).
            ("SY002".to_owned(), 37)
        ]
    );
    // The baseline file is relative to its own directory: the same result from a subdirectory.
    let from_subdir = graphbreak(
        &root.join("pkg"),
        &[
            "scan",
            "--baseline",
            "../graphbreak-baseline.json",
            "--output-format",
            "json",
            "..",
        ],
    );
    assert_eq!(codes_and_lines(&from_subdir), codes_and_lines(&new));
    // As pre-commit calls it, with only the changed file named.
    let named = graphbreak(
        &root,
        &[
            "scan",
            "--baseline",
            "graphbreak-baseline.json",
            "pkg/models.py",
        ],
    );
    assert_eq!(named.status.code(), Some(1), "{}", text(&named));
}

#[test]
fn a_fixed_finding_drops_out_when_the_baseline_is_rewritten() {
    let (_guard, root) = project();
    let baseline = root.join("graphbreak-baseline.json");
    let recorded = graphbreak(
        &root,
        &["scan", "--write-baseline", "graphbreak-baseline.json"],
    );
    assert_eq!(recorded.status.code(), Some(0), "{}", text(&recorded));
    git(&root, &["add", "graphbreak-baseline.json"]);
    git(&root, &["commit", "-q", "-m", "baseline"]);

    // Fix the `.item()` read.
    edit(
        &root,
        |s| s.replace("return x.sum().item()", "return x.sum()"),
        "fix SY002",
    );
    let after_fix = graphbreak(&root, &["scan", "--baseline", "graphbreak-baseline.json"]);
    assert_eq!(after_fix.status.code(), Some(0), "{}", text(&after_fix));

    let rewritten = graphbreak(
        &root,
        &["scan", "--write-baseline", "graphbreak-baseline.json"],
    );
    assert_eq!(rewritten.status.code(), Some(0), "{}", text(&rewritten));
    let entries = baseline_entries(&baseline);
    assert_eq!(entries.len(), 2, "{entries:#?}");
    assert!(entries.iter().all(|e| e["code"] == "BR001"));
    // In review, the rewrite is a pure removal of the fixed entry.
    let diff = git(&root, &["diff", "--numstat", "graphbreak-baseline.json"]);
    let (added, removed) = {
        let mut parts = diff.split_whitespace();
        (
            parts.next().unwrap().parse::<u32>().unwrap(),
            parts.next().unwrap().parse::<u32>().unwrap(),
        )
    };
    assert_eq!(added, 0, "{diff}");
    assert!(removed >= 7, "{diff}");

    // Bringing the hazard back is now a new finding.
    edit(
        &root,
        |s| s.replace("return x.sum()", "return x.sum().item()"),
        "reintroduce SY002",
    );
    let back = graphbreak(&root, &["scan", "--baseline", "graphbreak-baseline.json"]);
    assert_eq!(back.status.code(), Some(1), "{}", text(&back));
    assert!(String::from_utf8_lossy(&back.stdout).contains("SY002"));
}

#[test]
fn a_bad_baseline_is_a_clear_error() {
    let (_guard, root) = project();
    let missing = graphbreak(&root, &["scan", "--baseline", "nope.json"]);
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nope.json: cannot read baseline"));

    std::fs::write(root.join("report.json"), "[]").unwrap();
    let wrong = graphbreak(&root, &["scan", "--baseline", "report.json"]);
    assert_eq!(wrong.status.code(), Some(2), "{}", text(&wrong));
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("not a scan baseline"),
        "{}",
        text(&wrong)
    );

    let both = graphbreak(
        &root,
        &["scan", "--baseline", "a.json", "--write-baseline", "b.json"],
    );
    assert_eq!(both.status.code(), Some(2), "{}", text(&both));
}
