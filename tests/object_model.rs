//! Calls Python's object model makes without a call expression naming the method
//! (src/semantic/model/dunder.rs, src/semantic/link/queries.rs): operators on a project value
//! class, `len()`, iteration, `with`, an attribute store on `self` (`__setattr__`), a property read on a local instance, construction (`__new__`, a dataclass's `__post_init__`) and
//! a custom autograd function's `apply` (directly and through a module-level alias).
//! corpus/reach/object_model holds one hazard in each such method; tests/python/test_reach_proofs.py
//! shows Dynamo (torch 2.11, backend="eager") breaks at exactly these lines, and traces no
//! `__matmul__` (it breaks on the `@` operator instead).

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/object_model")
}

/// values.py rows of the hazards Dynamo traces (values.py:17, in `__matmul__`, it does not).
const TRACED_ROWS: [u32; 12] = [13, 21, 25, 29, 32, 38, 42, 51, 57, 74, 84, 94];

#[test]
fn methods_the_object_model_calls_are_reached_and_reported() {
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.model.*"]);
    let text = stdout(&out);
    for row in TRACED_ROWS {
        assert!(
            text.contains(&format!("pkg/values.py:{row}:")),
            "values.py:{row} not reported:\n{text}"
        );
    }
    assert!(!text.contains("pkg/values.py:17:"), "{text}");
    let reached = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*", "--show-reached"],
    ));
    for function in [
        "pkg.values.Value.__add__ (via pkg.model.Add.forward)",
        "pkg.values.Value.__mul__ (via pkg.model.Mul.forward)",
        "pkg.values.Value.__neg__ (via pkg.model.Neg.forward)",
        "pkg.values.Value.__len__ (via pkg.model.Length.forward)",
        "pkg.values.Value.__iter__ (via pkg.model.Iterate.forward)",
        "pkg.values.Scaled.__enter__ (via pkg.model.Within.forward)",
        "pkg.values.Scaled.__exit__ (via pkg.model.Within.forward)",
        "pkg.values.Config.__post_init__ (via pkg.model.Configured.forward)",
        "pkg.values.Shared.__new__ (via pkg.model.Built.forward)",
        "pkg.values.Square.forward (via pkg.model.Applied.forward)",
        "pkg.values.Square.backward (via pkg.model.Applied.forward)",
        "pkg.values.Recorder.__setattr__ (via pkg.model.Recorded.forward)",
        "pkg.values.Box.top (via pkg.model.Boxed.forward)",
    ] {
        assert!(
            reached.contains(function),
            "{function} not reached:\n{reached}"
        );
    }
    assert!(!reached.contains("Value.__matmul__"), "{reached}");
}

#[test]
fn an_autograd_function_is_reached_through_a_module_level_alias_alone() {
    // AppliedAlias calls `square = Square.apply`, imported from pkg.values.
    let reached = stdout(&graphbreak(
        &fixture(),
        &[
            "scan",
            ".",
            "--roots",
            "pkg.model.AppliedAlias",
            "--show-reached",
        ],
    ));
    assert!(
        reached.contains("pkg.values.Square.forward (via pkg.model.AppliedAlias.forward)"),
        "{reached}"
    );
    assert!(reached.contains("pkg.values.Square.backward"), "{reached}");
}

#[test]
fn a_modules_own_call_reaches_forward_through_super_call() {
    // pkg/calls.py: `Counted.__call__` returns `super().__call__(...)`; torch's Module.__call__
    // runs `Shift.forward` (the hazard at calls.py:18, where Dynamo breaks).
    let out = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.calls.run"],
    ));
    assert!(out.contains("pkg/calls.py:18:"), "{out}");
}
