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
