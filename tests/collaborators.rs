//! Property reads on collaborators (src/semantic/model/property_reads.rs,
//! src/semantic/link/property_reads.rs): `self.kernel.width` where `__init__` stored
//! `Kernel(...)`, `self.shape.area` where an annotated constructor parameter was stored (the
//! override of a live subclass counts: one a root names), `dist.spread` on an annotated
//! parameter and on a factory's result,
//! and a getter read inside a getter. A `functools.cached_property` read on a plain class is not
//! followed (Dynamo skips the reading frame and never traces the getter); one on an `nn.Module`
//! is (the getter runs as a frame of its own). tests/python/test_collaborator_reach_proofs.py
//! shows Dynamo (torch 2.11, backend="eager") breaks at exactly these lines.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/collaborators")
}

#[test]
fn property_getters_of_collaborators_are_reached_and_reported() {
    // `Square` is live when a root names it (an override runs only in a live subclass).
    let text = stdout(&graphbreak(
        &fixture(),
        &[
            "scan",
            ".",
            "--roots",
            "pkg.model.*",
            "--roots",
            "pkg.parts.Square",
        ],
    ));
    for line in [
        "pkg/parts.py:17:", // Kernel.width, through self.kernel
        "pkg/parts.py:32:", // Dist.scale, read inside Dist.spread
        "pkg/parts.py:45:", // Square.area, overriding Shape.area of an annotated attribute
        "pkg/model.py:63:", // a cached_property of the Module itself
    ] {
        assert!(text.contains(line), "{line} not reported:\n{text}");
    }
    // Cached.total: a cached_property of a plain class, never traced.
    assert!(!text.contains("pkg/parts.py:54:"), "{text}");
}

#[test]
fn each_way_of_knowing_the_receiver_reaches_the_getter() {
    let reached = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*", "--show-reached"],
    ));
    for (root, function) in [
        ("pkg.model.Stored", "pkg.parts.Kernel.width"),
        ("pkg.model.Injected", "pkg.parts.Square.area"),
        ("pkg.model.Annotated", "pkg.parts.Dist.spread"),
        ("pkg.model.Made", "pkg.parts.Dist.spread"),
        ("pkg.model.Made", "pkg.parts.Dist.scale"),
    ] {
        let one = stdout(&graphbreak(
            &fixture(),
            &[
                "scan",
                ".",
                "--roots",
                root,
                "--roots",
                "pkg.parts.Square",
                "--show-reached",
            ],
        ));
        assert!(
            one.contains(&format!("{function} (via {root}.forward)")),
            "{function} not reached from {root}:\n{one}"
        );
    }
    assert!(!reached.contains("pkg.parts.Cached.total"), "{reached}");
    // No root names `Square`: a base-typed collaborator runs the base's getter only.
    assert!(reached.contains("pkg.parts.Shape.area"), "{reached}");
    assert!(!reached.contains("pkg.parts.Square.area"), "{reached}");
}
