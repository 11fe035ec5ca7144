//! Branches no torch that compiles takes are not traced (src/semantic/model/torch_versions.rs):
//! corpus/torch_versions/branches.py, and flags read from another module in
//! corpus/torch_versions/across_files. tests/python/test_torch_version_branches.py checks each
//! flag's value under the installed torch and compiles the cross-module model under Dynamo.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/torch_versions")
}

fn reported_rows(args: &[&str]) -> Vec<u32> {
    rows_in("branches.py", args)
}

fn rows_in(file: &str, args: &[&str]) -> Vec<u32> {
    let out = graphbreak(&fixture(), args);
    let text = stdout(&out);
    let prefix = format!("{file}:");
    let mut rows: Vec<u32> = text
        .lines()
        // The branches' `x.storage()` (BR035); a low `--torch-version` adds VR001 findings on
        // `is_compiling`, which are about the API, not the branch.
        .filter(|line| line.contains(" BR035 "))
        .filter_map(|line| line.strip_prefix(prefix.as_str()))
        .filter_map(|rest| rest.split(':').next()?.parse().ok())
        .collect();
    rows.sort();
    rows
}

#[test]
fn branches_no_compiling_torch_takes_are_not_reported() {
    // 25: else of `_TORCH_GE_2`; 27: `if IS_OLD_TORCH:` — never traced. 29 (`not TORCH_GE_2_1`)
    // runs on torch 2.0; 31 and 33 are both sides of an unknown; 35 is eager-only, whatever the
    // flag beside `not is_compiling()` says.
    assert_eq!(reported_rows(&["scan", "."]), vec![29, 31, 33]);
}

#[test]
fn a_floor_above_the_flag_makes_its_negation_dead() {
    assert_eq!(
        reported_rows(&["scan", ".", "--torch-version", "2.1"]),
        vec![31, 33]
    );
}

#[test]
fn flags_read_from_another_module_decide_branches() {
    // 21: else of an imported `TORCH_GE_2` (the major part read as an int); 23: `compat.IS_TORCH_1`
    // read as a module attribute; 25: eager-only. 27 (`TORCH_GE_3`) may run.
    assert_eq!(rows_in("across_files/model.py", &["scan", "."]), vec![27]);
}
