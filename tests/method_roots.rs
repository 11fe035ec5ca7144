//! Roots that name a method (src/semantic/link/roots.rs `inherited_method_root`): the entry point
//! a user compiles on an instance (`torch.compile(model.encode)`) named as
//! `--roots "pkg.model.Text.encode"`, where `Text` inherits `encode` from `Coder`. It roots
//! `Coder.encode` with `self` a `Text`, so `self.embed(...)` reaches `Text.embed` (Dynamo breaks
//! there: tests/python/test_collaborator_reach_proofs.py) and not the sibling `Image.embed`.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/method_roots")
}

#[test]
fn a_root_naming_an_inherited_method_roots_it_with_self_of_the_named_class() {
    let out = graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.Text.encode"],
    );
    let text = stdout(&out);
    assert!(
        text.contains("pkg/model.py:23:"),
        "Text.embed not reported:\n{text}"
    );
    assert!(
        !text.contains("pkg/model.py:29:"),
        "Image.embed reported:\n{text}"
    );
    let roots = stdout(&graphbreak(
        &fixture(),
        &[
            "scan",
            ".",
            "--roots",
            "pkg.model.Text.encode",
            "--show-roots",
        ],
    ));
    assert!(
        roots.contains("pkg.model.Coder.encode") && roots.contains("--roots pkg.model.Text.encode"),
        "{roots}"
    );
}

#[test]
fn a_root_naming_a_method_the_class_does_not_have_is_an_error() {
    let out = graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.Text.decode"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("matches no nn.Module class or function"),
        "{err}"
    );
}
