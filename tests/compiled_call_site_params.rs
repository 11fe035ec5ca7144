//! A compiled function's parameters take the class or function its call site passes
//! (src/semantic/model/param_bindings.rs): corpus/reach/compiled_call_site_params compiles `step`
//! with a `Recorder` and the function `scale`; what `step` does with them reaches
//! `Recorder.__setattr__`, `Recorder.summary` and `scale`. tests/python/test_reach_proofs.py shows
//! Dynamo breaks in each.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/compiled_call_site_params")
}

#[test]
fn what_a_compiled_call_site_passes_is_reached_through_the_parameter() {
    let out = graphbreak(&fixture(), &["scan", ".", "--show-reached"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for function in [
        "pkg.parts.Recorder.__setattr__", // `rec.last = y`
        "pkg.parts.Recorder.summary",     // `rec.summary(y)`
        "pkg.parts.scale",                // `head(x)`
    ] {
        assert!(
            text.contains(&format!(" {function} (via pkg.steps.step)")),
            "{function} not reached:\n{text}"
        );
    }
    // Never passed anywhere; `plain` is given the same values but is not compiled.
    assert!(!text.contains("pkg.parts.unused"), "{text}");
    assert!(!text.contains("pkg.steps.plain"), "{text}");
}

#[test]
fn the_hazards_behind_a_bound_parameter_are_reported_with_their_chain() {
    let out = graphbreak(&fixture(), &["scan", "."]);
    let text = stdout(&out);
    for line in ["pkg/parts.py:8:", "pkg/parts.py:12:", "pkg/parts.py:17:"] {
        assert!(text.contains(line), "{line} not reported:\n{text}");
    }
    assert!(!text.contains("pkg/parts.py:21:"), "{text}");
    let why = graphbreak(&fixture(), &["scan", ".", "--why", "pkg/parts.py:12"]);
    assert!(
        stdout(&why).contains("pkg.steps.step -> pkg.parts.Recorder.summary"),
        "{}",
        stdout(&why)
    );
}

#[test]
fn an_ordinary_call_site_binds_nothing() {
    // The same function called without torch.compile: its parameters are not frame inputs, and
    // nothing the call passes is reached from them (the function is a root only when compiled).
    let dir = tempfile::tempdir().unwrap();
    common::write(
        dir.path(),
        "m.py",
        "import torch\n\n\nclass Recorder:\n    def summary(self, y):\n        torch._dynamo.graph_break()\n        return y\n\n\n@torch.compile\ndef root(x):\n    return x + 1\n\n\ndef step(rec, x):\n    return rec.summary(x)\n\n\ndef run():\n    step(Recorder(), torch.randn(3))\n",
    );
    let out = graphbreak(dir.path(), &["scan", "."]);
    let text = stdout(&out);
    assert!(!text.contains("m.py:6:"), "{text}");
}

fn enclosing_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/enclosing_instances")
}

#[test]
fn an_instance_read_from_the_module_or_a_closure_is_reached() {
    // corpus/reach/enclosing_instances: `store = Store()` at module level, `local = Store()` in
    // the enclosing function; `x.attr = v` runs `Store.__setattr__`, `store.lookup(x)` the method.
    for (root, reached) in [
        (
            "pkg.state.forward_step",
            &["pkg.state.Store.__setattr__", "pkg.state.Store.lookup"][..],
        ),
        (
            "pkg.state.make_step.step",
            &["pkg.state.Store.__setattr__"][..],
        ),
    ] {
        let out = graphbreak(
            &enclosing_fixture(),
            &["scan", ".", "--roots", root, "--show-reached"],
        );
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{text}");
        for function in reached {
            assert!(
                text.contains(&format!(" {function} (via {root})")),
                "{function} not reached from {root}:\n{text}"
            );
        }
    }
}

#[test]
fn a_local_of_the_same_name_hides_the_module_instance() {
    let dir = tempfile::tempdir().unwrap();
    common::write(
        dir.path(),
        "m.py",
        "import torch\n\n\nclass Store:\n    def lookup(self, x):\n        print(\"lookup\")\n        return x\n\n\nstore = Store()\n\n\ndef step(x, store):\n    return store.lookup(x)\n",
    );
    let out = graphbreak(dir.path(), &["scan", ".", "--roots", "m.step"]);
    let text = stdout(&out);
    // `store` is step's parameter: nothing says it is the module's instance.
    assert!(!text.contains("m.py:6:"), "{text}");
}
