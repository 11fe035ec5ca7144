//! Tensor facts for parameters from the arguments at call sites (src/semantic/model/
//! tensor_args.rs, src/semantic/tensor_params.rs): a parameter the body alone cannot type is a
//! tensor where a call passes one — a call of the compiled function (`torch.compile(fn)`,
//! `torch._dynamo.optimize(b)(fn)`, an `@torch.compile` function; positional or keyword,
//! a module-level loop over tensors included) or a traced caller passing its own such parameter
//! on. corpus/reach/tensor_arguments holds three branches on such parameters, one on a
//! parameter only ever given a Python bool and one on a parameter the body narrows with
//! `isinstance` first; tests/python/test_reach_proofs.py shows Dynamo (torch 2.11,
//! backend="eager") breaks at exactly the three.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/tensor_arguments")
}

#[test]
fn a_branch_on_a_parameter_a_call_gives_a_tensor_breaks() {
    let text = stdout(&graphbreak(&fixture(), &["scan", "."]));
    // `if check:` — the compiled call passes `torch.ones(1, dtype=torch.bool)`.
    assert!(text.contains("pkg/steps.py:9:8: BR001"), "{text}");
    // `if keep:` — route passes its parameter `mask`, a tensor at route's compiled call.
    assert!(text.contains("pkg/steps.py:29:8: BR001"), "{text}");
    // `if factor > 1:` — a tensor passed by keyword to an `@torch.compile` function.
    assert!(text.contains("pkg/steps.py:47:8: BR001"), "{text}");
    // `if use_bias:` — only ever a Python bool.
    assert!(!text.contains("pkg/steps.py:19:"), "{text}");
    // `isinstance(fill, list) and fill` — the body narrows `fill` before reading its truth.
    assert!(!text.contains("pkg/steps.py:61:"), "{text}");
    assert!(text.contains("Found 3 findings"), "{text}");
}
