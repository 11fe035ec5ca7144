//! Dynamo's own compile entry points (`DYNAMO_COMPILE_DECORATORS` in
//! src/semantic/model/calls.rs): `torch._dynamo.optimize(backend)(fn)` and
//! `@torch._dynamo.optimize(backend)` compile their function like `torch.compile`, so the tree's
//! compile roots include it. corpus/reach/dynamo_entry_points holds a break in each compiled
//! function and one in a function nothing compiles; tests/python/test_reach_proofs.py shows
//! Dynamo (torch 2.11, backend="eager") breaks at exactly the two compiled lines.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/dynamo_entry_points")
}

#[test]
fn functions_dynamo_optimize_compiles_are_roots() {
    let roots = stdout(&graphbreak(&fixture(), &["scan", ".", "--show-roots"]));
    assert!(
        roots.contains(
            "pkg.steps.wrapped_step reaches 1 function (torch._dynamo.optimize(...)(...)"
        ),
        "{roots}"
    );
    // The decorator form says which entry point made it a root (it read "@torch.compile").
    assert!(
        roots
            .contains("pkg.steps.decorated_step reaches 1 function (@torch._dynamo.optimize(...))"),
        "{roots}"
    );
    assert!(roots.contains("2 compile roots"), "{roots}");
    let text = stdout(&graphbreak(&fixture(), &["scan", "."]));
    assert!(text.contains("pkg/steps.py:8:5: BR004"), "{text}");
    assert!(text.contains("pkg/steps.py:17:5: BR004"), "{text}");
    assert!(!text.contains("pkg/steps.py:22:"), "{text}");
}
