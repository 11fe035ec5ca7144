//! Two class statements binding one name in one scope (`try: class A(...) except ImportError:
//! class A ...`, `if c: class A ... else: class A ...`) are two classes
//! (src/semantic/model/statements.rs, `summary::ALTERNATIVE_MARK`): `self` in a method of one
//! dispatches within that statement's class, and the name resolves to both.
//! corpus/reach/alternative_definitions/pkg/layers.py: the `try` body's `Sampler.draw` reads its
//! own `prefix` (no hazard), the handler's `Sampler.prefix` warns (line 36) but nothing reads it;
//! the `if` body's `Scaler.forward` reads its own `factor`, which warns (line 45).
//! tests/python/test_alternative_definition_proofs.py shows Dynamo (torch 2.11, backend="eager")
//! breaks at 45 and never at 36, whichever `Sampler` Python binds.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/alternative_definitions")
}

#[test]
fn self_in_one_class_statement_never_reaches_the_other_statements_members() {
    for roots in [&["--roots", "pkg.model.*"][..], &["--roots", "pkg.**"], &[]] {
        let mut args = vec!["scan", "."];
        args.extend_from_slice(roots);
        let text = stdout(&graphbreak(&fixture(), &args));
        assert!(
            text.contains("pkg/layers.py:45:"),
            "{roots:?}: the getter the `if` body's class reads is not reported:\n{text}"
        );
        assert!(
            !text.contains("pkg/layers.py:36:"),
            "{roots:?}: the handler's getter, which no method of its class reads, is reported:\n{text}"
        );
    }
}

#[test]
fn a_name_bound_by_two_class_statements_roots_and_shows_as_written() {
    let reached = stdout(&graphbreak(
        &fixture(),
        &[
            "scan",
            ".",
            "--roots",
            "pkg.layers.Sampler",
            "--show-reached",
        ],
    ));
    // The `try` body's class: its `draw` and the `prefix` getter it reads.
    for function in [
        "pkg/layers.py:23: pkg.layers.Sampler.prefix",
        "pkg/layers.py:27: pkg.layers.Sampler.draw",
    ] {
        assert!(
            reached.contains(function),
            "{function} not reached:\n{reached}"
        );
    }
    assert!(!reached.contains("layers.py:34:"), "{reached}");
    let json = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.**", "--output-format", "json"],
    ));
    assert!(json.contains("pkg.layers.Scaler.forward"), "{json}");
    assert!(
        !json.contains('#'),
        "an internal class name leaked:\n{json}"
    );
}
