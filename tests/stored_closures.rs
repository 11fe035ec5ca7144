//! Closures kept on `self` as a call's result (src/semantic/model/references.rs,
//! `Project::attribute_factory_closures` in src/semantic/link/resolve.rs): `self.step =
//! self._counted(self.step)` — the instance attribute shadows the method and holds the wrapper the
//! method returned — and `self.gate = make_gate(...)`, a factory's inner `def`; an annotated assignment stores alike. Calling the
//! attribute runs the closure. corpus/reach/stored_closures holds one hazard in each closure (and
//! one in a closure no attribute holds); tests/python/test_reach_proofs.py shows Dynamo (torch
//! 2.11, backend="eager") breaks at exactly these lines.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/stored_closures")
}

#[test]
fn closures_stored_from_a_call_are_reached_and_reported() {
    let text = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*"],
    ));
    for line in [
        "pkg/model.py:19:",   // WrappedInPlace._counted.counted, through self.step
        "pkg/helpers.py:6:",  // make_gate.gate, through self.gate
        "pkg/helpers.py:20:", // base_schedule, a function default the shifted closure calls
    ] {
        assert!(text.contains(line), "{line} not reported:\n{text}");
    }
    // unused_factory.never: no attribute holds it.
    assert!(!text.contains("pkg/helpers.py:14:"), "{text}");
    let reached = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*", "--show-reached"],
    ));
    for function in [
        "pkg.model.WrappedInPlace._counted.counted (via pkg.model.WrappedInPlace.forward)",
        // The wrapper calls the method it wraps: still reached.
        "pkg.model.WrappedInPlace.step (via pkg.model.WrappedInPlace.forward)",
        "pkg.model.AnnotatedWrap._checked.checked (via pkg.model.AnnotatedWrap.forward)",
        "pkg.helpers.make_gate.gate (via pkg.model.FactoryClosure.forward)",
        // A stored function default and the closure that replaced it: both candidates.
        "pkg.helpers.base_schedule (via pkg.model.DefaultThenShifted.forward)",
        "pkg.helpers.shifted.schedule (via pkg.model.DefaultThenShifted.forward)",
    ] {
        assert!(
            reached.contains(function),
            "{function} not reached:\n{reached}"
        );
    }
}
