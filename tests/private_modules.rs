//! Wildcard roots and private modules (src/semantic/link/roots.rs `private_package`): a module
//! under a private segment (`pkg._legacy`) that nothing outside its private package imports is
//! code the package never runs (PEP 8: the underscore marks it internal), so `--roots "pkg.**"`
//! does not root its classes, and `--show-roots` says so. A private module the package's
//! `__init__` re-exports, or another module imports inside a function or loads by name
//! (`importlib.import_module`), is rooted as before; a pattern that spells the private segment
//! roots it.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/private_modules")
}

#[test]
fn a_wildcard_root_skips_a_private_module_nothing_imports() {
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.**"]);
    let text = stdout(&out);
    assert!(
        text.contains("pkg/_impl.py:8:"),
        "re-exported module not rooted:\n{text}"
    );
    assert!(
        text.contains("pkg/_lazy.py:12:"),
        "lazily imported module not rooted:\n{text}"
    );
    assert!(
        text.contains("pkg/_plugin.py:9:") && text.contains("pkg/_backend.py:9:"),
        "private modules loaded by importlib.import_module not rooted:\n{text}"
    );
    assert!(
        !text.contains("pkg/_legacy.py"),
        "unimported private module rooted:\n{text}"
    );
    let roots = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.**", "--show-roots"],
    ));
    assert!(
        roots.contains("pkg._legacy: not rooted by `pkg.**`"),
        "the left-out module is not named:\n{roots}"
    );
}

#[test]
fn a_pattern_that_spells_the_private_segment_roots_it() {
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg._legacy.*"]);
    let text = stdout(&out);
    assert!(text.contains("pkg/_legacy.py:9:"), "{text}");
}

#[test]
fn without_roots_every_module_is_scanned_as_before() {
    let text = stdout(&graphbreak(&fixture(), &["scan", "."]));
    assert!(text.contains("pkg/_legacy.py:9:"), "{text}");
}
