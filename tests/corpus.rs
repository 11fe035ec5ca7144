//! The rule corpus is the scanner's specification: every `# expect: CODE` marker in
//! `corpus/rules/**.py` must be reported on that line, and nothing else may be reported. A
//! `+CODE` in a marker (`# expect: CR001 +CR002`) is a finding of CODE merged into that line's
//! finding (one cause: its `also` codes, `scan/merge.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn graphbreak() -> Command {
    Command::new(env!("CARGO_BIN_EXE_graphbreak"))
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/rules")
}

/// (file, row, code) for every marker.
fn expected_markers(dir: &Path) -> BTreeSet<(String, u32, String)> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "py") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (index, line) in text.lines().enumerate() {
                if let Some((_, codes)) = line.split_once("# expect:") {
                    for code in codes
                        .split([',', ' '])
                        .map(str::trim)
                        .filter(|c| !c.is_empty())
                    {
                        let merged = code.strip_prefix('+').unwrap_or(code);
                        if merged.chars().all(|c| c.is_ascii_alphanumeric()) {
                            out.insert((
                                path.display().to_string(),
                                index as u32 + 1,
                                code.to_owned(),
                            ));
                        }
                    }
                }
            }
        }
    }
    out
}

fn reported(dir: &Path) -> BTreeSet<(String, u32, String)> {
    let output = graphbreak()
        .args(["scan", "--output-format", "json"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "scan failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let items: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).unwrap();
    items
        .iter()
        .flat_map(|item| {
            let file = item["filename"].as_str().unwrap().to_owned();
            let row = item["location"]["row"].as_u64().unwrap() as u32;
            let also = item["also"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|code| format!("+{}", code.as_str().unwrap()));
            std::iter::once(item["code"].as_str().unwrap().to_owned())
                .chain(also)
                .map(move |code| (file.clone(), row, code))
        })
        .collect()
}

#[test]
fn corpus_markers_match_diagnostics_exactly() {
    let dir = corpus_dir();
    let expected = expected_markers(&dir);
    let actual = reported(&dir);
    let missing: Vec<_> = expected.difference(&actual).collect();
    let unexpected: Vec<_> = actual.difference(&expected).collect();
    assert!(
        missing.is_empty() && unexpected.is_empty(),
        "missed (false negatives): {missing:#?}\nunexpected (false positives): {unexpected:#?}"
    );
}

#[test]
fn every_rule_has_positive_and_negative_corpus_files() {
    let dir = corpus_dir();
    let output = graphbreak().arg("rules").output().unwrap();
    let listing = String::from_utf8(output.stdout).unwrap();
    for line in listing.lines().skip(1) {
        let code = line.split_whitespace().next().unwrap();
        if code.starts_with('E') {
            continue; // input errors are covered by tests/hostile.rs
        }
        for file in ["positive.py", "negative.py"] {
            let path = dir.join(code).join(file);
            assert!(path.is_file(), "{} is missing", path.display());
        }
        let positives = expected_markers(&dir.join(code));
        assert!(
            positives
                .iter()
                .any(|(_, _, c)| c.strip_prefix('+').unwrap_or(c) == code),
            "{code}/positive.py has no `# expect: {code}` marker"
        );
    }
}

#[test]
fn negatives_are_quiet_on_their_own() {
    // Scanning each negative file with its folder (helpers resolve) must report nothing in it.
    let dir = corpus_dir();
    let actual = reported(&dir);
    let noisy: Vec<_> = actual
        .iter()
        .filter(|(file, _, _)| file.ends_with("negative.py"))
        .collect();
    assert!(noisy.is_empty(), "negative files reported: {noisy:#?}");
}
