//! Members called on a class rather than found on an instance (src/semantic/link/resolve.rs):
//! `Sub.member()` where `Sub` inherits `member` (through a module attribute and through an
//! imported name — attribute lookup on a class walks its bases), and `self.__class__.member()`
//! (the instance's class: this one's member or an override). corpus/reach/class_members holds one
//! hazard in each member; tests/python/test_reach_proofs.py shows Dynamo (torch 2.11,
//! backend="eager") breaks at exactly these lines.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/class_members")
}

#[test]
fn inherited_members_called_on_a_class_are_reached_and_reported() {
    let text = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*"],
    ));
    for line in [
        "pkg/flags.py:11:", // Switch.level, through FastPath.level()
        "pkg/flags.py:16:", // Switch._check_state, through self.__class__
    ] {
        assert!(text.contains(line), "{line} not reported:\n{text}");
    }
    for root in ["ThroughModule", "ThroughName"] {
        let reached = stdout(&graphbreak(
            &fixture(),
            &[
                "scan",
                ".",
                "--roots",
                &format!("pkg.model.{root}"),
                "--show-reached",
            ],
        ));
        let expected = format!("pkg.flags.Switch.level (via pkg.model.{root}.forward)");
        assert!(reached.contains(&expected), "{expected}:\n{reached}");
    }
    let reached = stdout(&graphbreak(
        &fixture(),
        &[
            "scan",
            ".",
            "--roots",
            "pkg.model.ThroughInstanceClass",
            "--show-reached",
        ],
    ));
    assert!(
        reached
            .contains("pkg.flags.Switch._check_state (via pkg.model.ThroughInstanceClass.forward)"),
        "{reached}"
    );
    // Nothing calls `level` from the `with` Module.
    assert!(!reached.contains("Switch.level"), "{reached}");
}
