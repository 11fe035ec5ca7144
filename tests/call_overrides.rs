//! Module `__call__` overrides that do the work themselves (src/semantic/link/roots.rs
//! `call_override`): a base whose `__call__` prepares the input and calls `self.forward`, and one
//! that post-processes what `super().__call__` returned. Calling a submodule of such a class (an
//! attribute or a ModuleList element `__init__` built) runs the override; `torch.compile(module)`
//! compiles `module.__call__`, so a root class's override is a root too.
//! tests/python/test_collaborator_reach_proofs.py shows Dynamo (torch 2.11, backend="eager")
//! breaks at blocks.py:17 (`Direct.prepare`) and blocks.py:32 (`Post.finish`).

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/call_overrides")
}

#[test]
fn a_submodules_call_override_is_reached_with_what_it_calls() {
    for root in ["pkg.model.Net", "pkg.model.Stack"] {
        let text = stdout(&graphbreak(&fixture(), &["scan", ".", "--roots", root]));
        for line in ["pkg/blocks.py:17:", "pkg/blocks.py:32:"] {
            assert!(
                text.contains(line),
                "{line} not reported from {root}:\n{text}"
            );
        }
    }
}

#[test]
fn a_root_class_with_a_call_override_roots_the_override() {
    let reached = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.blocks.Shift", "--show-reached"],
    ));
    assert!(
        reached.contains("pkg.blocks.Direct.prepare (via pkg.blocks.Direct.__call__)"),
        "{reached}"
    );
    assert!(reached.contains("pkg.blocks.Shift.forward"), "{reached}");
}
