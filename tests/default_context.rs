//! Argument context at the defaults (src/semantic/context.rs, src/semantic/options.rs): a branch
//! that only a value no call passes could take is not in the normal tier. Each file of
//! corpus/reach/default_context marks its lines `# gated` (the option tier: reached only when a
//! user sets an option or argument off its default), `# normal` (reported whatever the values)
//! or `# never` (no context reaches it: not reported at all);
//! tests/python/test_default_context_proofs.py shows the same lines under Dynamo.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{graphbreak, text};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/default_context")
}

const TAGS: [&str; 3] = ["gated", "normal", "never"];

/// `(file, line)` → tag, for the lines the fixture marks (`never` lines are expected absent).
fn marked() -> BTreeMap<(String, u32), &'static str> {
    let mut out = BTreeMap::new();
    let dir = fixture().join("pkg");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "py") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(&path).unwrap();
        for (index, line) in source.lines().enumerate() {
            for tag in TAGS {
                if line.contains(&format!("# {tag}:")) {
                    out.insert((name.clone(), index as u32 + 1), tag);
                }
            }
        }
    }
    out
}

/// `(file, line)` → the tier scan reports it in.
fn tiers(args: &[&str]) -> BTreeMap<(String, u32), &'static str> {
    let mut all = vec!["scan", ".", "--no-config", "--output-format", "json"];
    all.extend_from_slice(args);
    let out = graphbreak(&fixture(), &all);
    let findings: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out)));
    let mut seen = BTreeMap::new();
    for finding in findings.as_array().unwrap() {
        let file = finding["filename"].as_str().unwrap();
        let name = Path::new(file).file_name().unwrap().to_string_lossy();
        let row = finding["location"]["row"].as_u64().unwrap() as u32;
        let gated = !finding["gated_by"].as_array().unwrap().is_empty();
        seen.insert(
            (name.into_owned(), row),
            if gated { "gated" } else { "normal" },
        );
    }
    seen
}

fn expected_reported() -> BTreeMap<(String, u32), &'static str> {
    marked()
        .into_iter()
        .filter(|(_, tag)| *tag != "never")
        .collect()
}

#[test]
fn each_marked_line_lands_in_its_tier_with_roots() {
    let expected = expected_reported();
    assert!(expected.len() >= 4, "{expected:?}");
    assert_eq!(tiers(&["--roots", "pkg.**"]), expected);
}

/// `self.prob > 0` on a `prob=0.0` option is decided at the default, and the gate says which
/// value it needs.
#[test]
fn a_numeric_option_compared_with_a_number_is_gated_and_named() {
    let out = graphbreak(
        &fixture(),
        &["scan", ".", "--no-config", "--output-format", "json"],
    );
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let gates: Vec<serde_json::Value> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["filename"].as_str().unwrap().ends_with("numeric.py"))
        .map(|f| f["gated_by"].clone())
        .collect();
    assert!(
        gates.contains(&serde_json::json!([{"class": "pkg.numeric.Dropper", "option": "prob", "default": "0.0", "needs": "!= 0.0"}])),
        "{gates:?}"
    );
}
