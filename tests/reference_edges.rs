//! Functions used as values reach the region (src/semantic/model/references.rs): corpus/reach/
//! functions_as_values pins each idiom to the function it makes reachable and the finding in it;
//! tests/python/test_reach_proofs.py shows Dynamo traces (and breaks in) each of them.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/functions_as_values")
}

#[test]
fn functions_used_as_values_are_reached_from_the_root() {
    let out = graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.Net", "--show-reached"],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for function in [
        "pkg.model.Net.scale",       // property getter
        "pkg.model.Net.bounded",     // bound method in a local
        "pkg.helpers.squeeze_item",  // function argument
        "pkg.helpers.pack.unpack",   // returned closure
        "pkg.helpers.identity",      // self.act = identity
        "pkg.helpers.keep_positive", // parameter default stored on self
    ] {
        assert!(
            text.contains(&format!(" {function} (via pkg.model.Net.forward)")),
            "{function} not reached:\n{text}"
        );
    }
}

#[test]
fn the_hazards_in_functions_used_as_values_are_reported() {
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.model.Net"]);
    let text = stdout(&out);
    for line in [
        "pkg/helpers.py:5:",
        "pkg/helpers.py:9:",
        "pkg/helpers.py:13:",
        "pkg/helpers.py:22:",
        "pkg/helpers.py:29:",
        "pkg/model.py:30:",
        "pkg/model.py:33:",
    ] {
        assert!(text.contains(line), "{line} not reported:\n{text}");
    }
}

#[test]
fn a_read_of_a_stored_instance_does_not_call_it() {
    // `self.head.scale_value` reads an attribute of a stored object: its `__call__` is not run by
    // the read (a reference reaches methods of `self`'s class only).
    let dir = tempfile::tempdir().unwrap();
    common::write(
        dir.path(),
        "m.py",
        "\
import torch


class Head:
    scale_value = 2.0

    def __call__(self, x):
        return x.sum().item()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Head()

    def forward(self, x):
        return x * self.head.scale_value
",
    );
    let out = graphbreak(
        dir.path(),
        &["scan", ".", "--roots", "m.Net", "--show-reached"],
    );
    let text = stdout(&out);
    assert!(text.contains("m.Net.forward"), "{text}");
    assert!(!text.contains("Head.__call__"), "{text}");
}
