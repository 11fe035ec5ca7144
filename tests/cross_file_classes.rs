//! Class hierarchy across files at link time: a submodule whose class is a project subclass of a
//! torch module Dynamo will not wrap, defined in another file and imported through a package's
//! `__init__`, or picked by a helper in another file and bound through a local
//! (corpus/reach/cross_file_rnn). tests/python/test_reach_proofs.py shows Dynamo
//! refusing it (GB0014) and running the frame eagerly, and tracing the wrapped one whole.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/cross_file_rnn")
}

#[test]
fn a_submodule_of_an_imported_project_rnn_subclass_is_reported() {
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.model.*"]);
    let text = stdout(&out);
    assert!(text.contains("pkg/model.py:15:18: BR011"), "{text}");
}

#[test]
fn an_imported_project_subclass_of_a_wrapped_module_is_not() {
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.model.*"]);
    let text = stdout(&out);
    // model.py:15 and the `super().forward` of `Lstm.forward` (recurrent.py:7), a frame of its
    // own that Dynamo refuses too (two GB0014 refusals, tests/python/test_rnn_super_forward_proofs.py).
    assert_eq!(text.matches("BR011").count(), 2, "{text}");
    assert!(
        text.contains("pkg/layers/recurrent.py:7:16: BR011"),
        "{text}"
    );
    assert!(!text.contains("pkg/model.py:24:"), "{text}");
}

#[test]
fn super_forward_in_a_subclass_of_an_imported_project_rnn_class_skips_its_frame() {
    // pkg/stacked.py: `Stacked(Lstm)` calls `super().forward` (torch's LSTM forward on `self`),
    // decided at link through `Lstm` in another file; its later print is folded into it.
    // `Widened(Gate)` derives from a module Dynamo wraps: nothing.
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.stacked.*"]);
    let text = stdout(&out);
    assert!(text.contains("pkg/stacked.py:11:22: BR011"), "{text}");
    assert!(text.contains("later hazards on line 12"), "{text}");
    assert!(!text.contains("pkg/stacked.py:12:"), "{text}");
    assert!(!text.contains("pkg/stacked.py:19:"), "{text}");
}

#[test]
fn a_submodule_built_from_a_class_an_imported_helper_picks_is_reported_when_every_pick_is_an_rnn() {
    // `cell_cls = pick_cell(kind)`; `self.rnn = cell_cls(...)`: both branches of `pick_cell`
    // (pkg/layers/picking.py) bind a project RNN subclass to the local it returns.
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.picked.*"]);
    let text = stdout(&out);
    assert!(text.contains("pkg/picked.py:15:18: BR011"), "{text}");
}

#[test]
fn a_helper_that_may_return_its_parameter_is_no_rnn_pick() {
    // `pick_layer` returns the caller's `default` in one branch (here `nn.Linear`, traced whole):
    // not every class it can return is an RNN kind, so `self.layer(x)` is not reported.
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.picked.*"]);
    let text = stdout(&out);
    assert_eq!(text.matches("BR011").count(), 3, "{text}");
    assert!(!text.contains("pkg/picked.py:26:"), "{text}");
}

#[test]
fn a_parameter_narrowed_by_a_class_test_keeps_the_pick_an_rnn_kind() {
    // `pick_known`: the caller's class is returned only inside `issubclass(cell, nn.LSTM)`;
    // `pick_kept`: a module instance inside `isinstance(cell, nn.Module)` builds no submodule
    // when called with constructor arguments, so only `Lstm` can be built.
    let out = graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.picked.*"]);
    let text = stdout(&out);
    assert!(text.contains("pkg/picked.py:36:18: BR011"), "{text}");
    assert!(text.contains("pkg/picked.py:47:18: BR011"), "{text}");
}
