//! A class used as a bare decorator (src/semantic/link/roots.rs, `bare_decorators` from
//! src/semantic/model/functions.rs): `@counted def scale(x)` makes `scale` a `counted` instance,
//! so a traced call of `scale(x)` runs `counted.__call__` (which calls the original function).
//! corpus/reach/class_decorators holds the hazard in `__call__`; tests/python/test_reach_proofs.py
//! shows Dynamo (torch 2.11, backend="eager") breaks at exactly this line.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/class_decorators")
}

#[test]
fn calling_a_class_decorated_function_runs_the_classes_call() {
    let text = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*"],
    ));
    assert!(text.contains("pkg/wrap.py:11:"), "{text}");
    let reached = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*", "--show-reached"],
    ));
    for function in [
        "pkg.wrap.counted.__call__ (via pkg.model.Scaled.forward)",
        "pkg.wrap.scale (via pkg.model.Scaled.forward)",
    ] {
        assert!(
            reached.contains(function),
            "{function} not reached:\n{reached}"
        );
    }
    // `__init__` runs when the decorator applies, at import, not in the compiled call.
    assert!(!reached.contains("pkg.wrap.counted.__init__"), "{reached}");
}
