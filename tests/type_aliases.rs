//! Type aliases of the project (src/semantic/tensor_params.rs `is_tensor_alias`): a root's input
//! annotated `edge_type: OptTensor`, with `OptTensor = Optional[Tensor]` in another module of the
//! tree, holds a tensor whenever its user passes one, like an input annotated `Optional[Tensor]`
//! itself; an alias of anything else (`Adj = Union[Tensor, int]`) does not say so.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/type_aliases")
}

#[test]
fn an_input_annotated_with_an_optional_tensor_alias_is_a_tensor_input() {
    let text = stdout(&graphbreak(&fixture(), &["scan", ".", "--roots", "pkg.**"]));
    assert!(
        text.contains("pkg/conv.py:12:") && text.contains("BR003"),
        "the mask read through the alias-typed input is not reported:\n{text}"
    );
    assert!(
        !text.contains("pkg/conv.py:16:"),
        "an input annotated with a non-tensor alias was taken for a tensor:\n{text}"
    );
}
