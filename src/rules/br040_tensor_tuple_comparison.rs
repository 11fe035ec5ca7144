use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::model::SemanticModel;
use crate::semantic::summary::Hazard;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags, in code Dynamo traces, `==` / `!=` between a tuple (or list) whose first element
    /// is a tensor and a tuple or list display of the same length: `if pad == (0, 0):` where
    /// `pad = (h_pad, w_pad)` holds tensors computed in the function. The sequence may be
    /// written in the comparison or be a local bound only to such a display.
    ///
    /// ## Why is this bad?
    /// Python compares two tuples element by element and needs each element comparison as a
    /// bool: `h_pad == 0` is a tensor, and its truth is data. Dynamo ends the graph there,
    /// whether or not the result feeds an `if` (measured on torch 2.11, `backend="eager"`,
    /// `fullgraph=True`: GB0170 "Data-dependent branching", for `==` and `!=`, tuples and
    /// lists, one element or several, and a tuple against a list, which Python answers False
    /// without comparing but Dynamo compares element by element). Sequences of different
    /// lengths (`(t, 0) == (0, 0, 0)`) compare without touching the elements and are not
    /// flagged, nor is a sequence whose first element is a Python number.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     pad = ((-x.shape[-1]) % self.k * x.new_ones(()), x.new_zeros(()))
    ///     if pad == (0, 0):        # GB0170: graph break
    ///         return x
    ///     return F.pad(x, pad)
    /// ```
    ///
    /// ## Fix
    /// Keep sizes and padding as Python ints (from `x.shape`, `int` arithmetic), or compare on
    /// the device without branching (`torch.where`).
    ///
    /// ## Torch versions
    /// Measured breaking on torch 2.2, 2.5, 2.8 and 2.11 (`==`, `!=`, lists, an inline tuple;
    /// "Dynamic control flow is not supported" before 2.8).
    pub struct TensorTupleComparison {
        code: "BR040",
        name: "tensor-tuple-comparison",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "tuple/list holding tensors compared with == / != to a tuple/list of the same length in traced code: each element's truth is data, graph break",
        hooks: { compare: check_compare },
    }
}

fn display(expr: &Expr) -> Option<&[Expr]> {
    match expr {
        Expr::Tuple(tuple) => Some(&tuple.elts),
        Expr::List(list) => Some(&list.elts),
        _ => None,
    }
}

/// The display `expr` is, or the one every value of local `expr` here is.
fn sequence<'a>(semantic: &SemanticModel<'a>, expr: &'a Expr) -> Option<&'a [Expr]> {
    if let Some(found) = display(expr) {
        return Some(found);
    }
    let Expr::Name(name) = expr else {
        return None;
    };
    let values = semantic.local_values(name.id.as_str());
    let [value] = values else {
        return None;
    };
    display(value)
}

fn check_compare(checker: &mut Checker<'_>, compare: &ast::ExprCompare) {
    let semantic = checker.semantic();
    if !semantic.in_function()
        || compare.ops.len() != 1
        || !matches!(compare.ops[0], ast::CmpOp::Eq | ast::CmpOp::NotEq)
    {
        return;
    }
    let [right] = compare.comparators.as_ref() else {
        return;
    };
    let left = &*compare.left;
    let (Some(left_elts), Some(right_elts)) = (sequence(semantic, left), sequence(semantic, right))
    else {
        return;
    };
    // A tuple against a list: Dynamo compares the elements too (measured), unlike Python.
    if left_elts.len() != right_elts.len()
        || left_elts
            .iter()
            .chain(right_elts)
            .any(|e| matches!(e, Expr::Starred(_)))
    {
        return;
    }
    // Python compares the first elements first: one of them a tensor makes the comparison a
    // tensor's truth.
    let first_is_tensor = |elts: &[Expr]| {
        elts.first()
            .is_some_and(|first| semantic.tensor_kind(first) == TensorKind::Tensor)
    };
    if !(first_is_tensor(left_elts) || first_is_tensor(right_elts)) {
        return;
    }
    let label = super::graph_break_label("Data-dependent branching");
    checker.report(
        &TensorTupleComparison::META,
        Finding::new(
            compare.range(),
            format!(
                "sequence holding tensors compared element by element in traced code: each tensor comparison's truth is data, graph break under torch.compile ({label}); keep the values as Python ints, or compare with torch ops"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
