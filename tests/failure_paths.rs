//! A block that ends in `raise` is a failure path only from its last early exit on
//! (src/semantic/model/statements.rs `failure_only_from`, src/scan/checker/mod.rs `visit_body`):
//! `if basis == "smooth": return smooth_step(x)` before a final `raise ValueError(...)` is the
//! success path, so `smooth_step` is reached and its hazard reported; the message built for the
//! `raise` itself stays failure-only. corpus/reach/failure_paths; tests/python/test_reach_proofs.py
//! shows Dynamo (torch 2.11, backend="eager") breaks at exactly this line.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/failure_paths")
}

#[test]
fn early_returns_before_a_final_raise_are_success_paths() {
    let text = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*"],
    ));
    // smooth_step, returned from the `basis == "smooth"` branch.
    assert!(text.contains("pkg/model.py:8:"), "{text}");
    // describe, only for the message of the final raise.
    assert!(!text.contains("pkg/model.py:13:"), "{text}");
    let reached = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*", "--show-reached"],
    ));
    assert!(
        reached.contains("pkg.model.smooth_step (via pkg.model.Smooth.forward)"),
        "{reached}"
    );
    assert!(!reached.contains("pkg.model.describe"), "{reached}");
}
