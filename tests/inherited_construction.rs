//! What a root class runs through what it inherits (src/semantic/link/roots.rs):
//! corpus/reach/inherited_construction pins each idiom to the function it reaches and the finding
//! in it; tests/python/test_reach_proofs.py shows Dynamo traces (and breaks in) each of them.
//! - a base class's `forward` iterating the blocks a subclass's `__init__` builds (the subclass
//!   is the root; the base forward runs on it), and the mixin method a block calls;
//! - a `nn.Sequential` subclass with no `forward`: torch's `Sequential.forward` calls each child
//!   its `__init__` built;
//! - a method under a project decorator (`@keep_kind(tag=...) def forward`): the name holds the
//!   wrapper the decorator defines, so calling it runs the wrapper and what the wrapper calls.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/inherited_construction")
}

#[test]
fn modules_built_by_an_inheriting_subclass_and_sequential_children_are_reached() {
    let out = graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*", "--show-reached"],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for function in [
        "pkg.blocks.Block.forward (via pkg.base.Stack.forward)",
        "pkg.blocks.ScaleMixin.scaled (via pkg.base.Stack.forward)",
        "pkg.blocks.Patch.forward (via pkg.blocks.Patch.forward)",
        "pkg.wrappers.keep_kind.wrapper (via pkg.model.Wrapped.forward)",
        "pkg.wrappers.is_positive (via pkg.model.Wrapped.forward)",
    ] {
        assert!(text.contains(function), "{function} not reached:\n{text}");
    }
}

#[test]
fn the_hazards_they_run_are_reported() {
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.model.*"]);
    let text = stdout(&out);
    for line in [
        "pkg/blocks.py:8:",
        "pkg/blocks.py:24:",
        "pkg/wrappers.py:5:",
    ] {
        assert!(text.contains(line), "{line} not reported:\n{text}");
    }
}

#[test]
fn the_decorator_itself_is_not_reached() {
    // `keep_kind` runs when the class body is executed (import time), not when forward is called.
    let out = graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*", "--show-reached"],
    );
    let text = stdout(&out);
    assert!(!text.contains("pkg.wrappers.keep_kind (via"), "{text}");
}

#[test]
fn a_class_root_means_forward_and_a_named_method_roots_that_method() {
    // Root patterns that match a class root its `forward` (what calling the module runs); an entry
    // point that is another method (`model.sample(...)` compiled by the user) is rooted by naming
    // it exactly.
    let dir = tempfile::tempdir().unwrap();
    common::write(
        dir.path(),
        "m.py",
        "\
from torch import nn


def denoise_step(x):
    return x


class Sampler(nn.Module):
    def forward(self, x):
        return x

    def sample(self, x):
        return denoise_step(x)
",
    );
    let class_only = stdout(&graphbreak(
        dir.path(),
        &["scan", ".", "--roots", "m.Sampler", "--show-reached"],
    ));
    assert!(class_only.contains("m.Sampler.forward"), "{class_only}");
    assert!(!class_only.contains("m.Sampler.sample"), "{class_only}");
    let named = stdout(&graphbreak(
        dir.path(),
        &["scan", ".", "--roots", "m.Sampler.sample", "--show-reached"],
    ));
    assert!(
        named.contains("m.denoise_step (via m.Sampler.sample)"),
        "{named}"
    );
}
