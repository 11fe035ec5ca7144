//! Overrides torch's own `forward` calls (rules/data/torch_module_hooks.toml,
//! src/semantic/link/torch_hooks.rs): a `nn.Conv2d` subclass overriding `_conv_forward` and a
//! `nn.BatchNorm1d` subclass overriding `_check_input_dim`, neither with a `forward`. Calling the
//! module (a submodule `__init__` built, a root class, or with no roots at all) reaches the
//! override; tests/python/test_collaborator_reach_proofs.py shows Dynamo (torch 2.11,
//! backend="eager") breaks at model.py:13 and model.py:19.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/torch_hooks")
}

#[test]
fn overrides_torchs_forward_calls_are_reached_from_the_module_call() {
    for args in [
        &["scan", ".", "--roots", "pkg.model.Net"][..],
        &["scan", "."][..],
    ] {
        let text = stdout(&graphbreak(&fixture(), args));
        for line in ["pkg/model.py:13:", "pkg/model.py:19:"] {
            assert!(
                text.contains(line),
                "{line} not reported with {args:?}:\n{text}"
            );
        }
    }
}

#[test]
fn a_root_class_without_forward_roots_its_hook_overrides() {
    let reached = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.Conv", "--show-reached"],
    ));
    assert!(
        reached.contains("pkg.model.Conv._conv_forward"),
        "{reached}"
    );
    assert!(
        !reached.contains("pkg.model.Norm._check_input_dim"),
        "{reached}"
    );
}
