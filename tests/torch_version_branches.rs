//! Branches no torch that compiles takes are not traced (src/semantic/model/torch_versions.rs):
//! corpus/torch_versions/branches.py. tests/python/test_torch_version_branches.py checks each
//! flag's value under the installed torch.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/torch_versions")
}

fn reported_rows(args: &[&str]) -> Vec<u32> {
    let out = graphbreak(&fixture(), args);
    let text = stdout(&out);
    let mut rows: Vec<u32> = text
        .lines()
        .filter_map(|line| line.strip_prefix("branches.py:"))
        .filter_map(|rest| rest.split(':').next()?.parse().ok())
        .collect();
    rows.sort();
    rows
}

#[test]
fn branches_no_compiling_torch_takes_are_not_reported() {
    // 25: else of `_TORCH_GE_2`; 27: `if IS_OLD_TORCH:` — never traced. 29 (`not TORCH_GE_2_1`)
    // runs on torch 2.0; 31 and 33 are both sides of an unknown.
    assert_eq!(reported_rows(&["scan", "."]), vec![29, 31, 33]);
}

#[test]
fn a_floor_above_the_flag_makes_its_negation_dead() {
    assert_eq!(
        reported_rows(&["scan", ".", "--torch-version", "2.1"]),
        vec![31, 33]
    );
}
