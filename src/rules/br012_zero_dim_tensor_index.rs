use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::model::SemanticModel;
use crate::semantic::summary::Hazard;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags indexing, in code Dynamo traces, with a 0-d integer tensor: the result of
    /// `argmax()` / `argmin()` over all elements (no `dim`), as `t.argmax()`,
    /// `torch.argmax(t)`, or a local assigned from one (`best = scores.argmax();
    /// boxes[best]`, `rows[k]`, `x[:, i]`).
    ///
    /// Only indices known to be 0-d are flagged: `argmax(dim=0)` returns a tensor of indices
    /// and indexing with it is ordinary advanced indexing, which Dynamo traces.
    ///
    /// ## Why is this bad?
    /// Dynamo turns a 0-d tensor used as an index into a Python int, which needs the tensor's
    /// value: a graph break and, on an accelerator, a device sync. Measured on torch 2.2 and
    /// 2.11 (backend="eager"): indexing a tensor breaks with GB0033 "Data dependent operator";
    /// indexing a Python list with "Indexing list with non-scalar tensor".
    ///
    /// ## Example
    /// ```python
    /// def forward(self, boxes, scores):
    ///     best = scores.argmax()
    ///     return boxes[best]
    /// ```
    ///
    /// ## Fix
    /// Keep the index a tensor of indices and gather: `boxes[scores.argmax(dim=0, keepdim=True)]`,
    /// `boxes.index_select(0, scores.argmax().unsqueeze(0))` or `torch.gather`, or stack the
    /// list into a tensor first.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2 and 2.11.
    pub struct ZeroDimTensorIndex {
        code: "BR012",
        name: "zero-dim-tensor-index",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "indexing with a 0-d integer tensor (x[t.argmax()]): Dynamo needs its value, graph break",
        hooks: { subscript: check_subscript },
    }
}

fn check_subscript(checker: &mut Checker<'_>, subscript: &ast::ExprSubscript) {
    let semantic = checker.semantic();
    if !semantic.in_function() || subscript.ctx != ast::ExprContext::Load {
        return;
    }
    let indices: Vec<&Expr> = match &*subscript.slice {
        Expr::Tuple(tuple) => tuple.elts.iter().collect(),
        index => vec![index],
    };
    if !indices
        .iter()
        .any(|index| is_zero_dim_index(semantic, index, 0))
    {
        return;
    }
    let what = match semantic.tensor_kind(&subscript.value) {
        TensorKind::Tensor => format!(
            "indexing a tensor with a 0-d integer tensor needs its value as a Python int: graph break under torch.compile ({}), and a device sync on an accelerator",
            super::graph_break_label("Data dependent operator")
        ),
        TensorKind::NotTensor => format!(
            "indexing a Python sequence with a 0-d integer tensor needs its value as a Python int: graph break under torch.compile ({}), and a device sync on an accelerator",
            super::graph_break_label("Indexing list with non-scalar tensor")
        ),
        TensorKind::Unknown => format!(
            "indexing with a 0-d integer tensor needs its value as a Python int: graph break under torch.compile ({} on a tensor, {} on a list), and a device sync on an accelerator",
            super::graph_break_label("Data dependent operator"),
            super::graph_break_label("Indexing list with non-scalar tensor")
        ),
    };
    checker.report(
        &ZeroDimTensorIndex::META,
        Finding::new(subscript.range(), what).with_hazard(Hazard::GraphBreak),
    );
}

/// `t.argmax()` / `t.argmin()` / `torch.argmax(t)` over all elements, or a local assigned one.
fn is_zero_dim_index(semantic: &SemanticModel<'_>, index: &Expr, depth: u32) -> bool {
    match index {
        Expr::Call(call) => {
            if call.arguments.find_keyword("dim").is_some() {
                return false;
            }
            match semantic.qualified(&call.func).as_deref() {
                Some("torch.argmax" | "torch.argmin") => call.arguments.args.len() == 1,
                Some(_) => false,
                None => {
                    let Expr::Attribute(attribute) = &*call.func else {
                        return false;
                    };
                    // A numpy array's argmax is a numpy integer: no tensor index.
                    matches!(attribute.attr.id.as_str(), "argmax" | "argmin")
                        && call.arguments.args.is_empty()
                        && semantic.receiver_may_be_tensor(&attribute.value, 0)
                        && !semantic.is_numpy_value(&attribute.value)
                }
            }
        }
        // One hop: the value recorded at the local's last assignment.
        Expr::Name(name) if depth == 0 => semantic
            .local_value(name.id.as_str())
            .is_some_and(|value| is_zero_dim_index(semantic, value, depth + 1)),
        _ => false,
    }
}
