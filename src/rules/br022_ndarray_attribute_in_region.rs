use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags reading `.dtype` of a numpy array inside a function Dynamo traces, where the code
    /// compares it with a numpy dtype (`a.dtype != np.float32`, `a.dtype == np.uint8`):
    /// a torch dtype never equals a numpy one, so the comparison is only meaningful for an array
    /// (an array that arrives as an argument, or from a container of them).
    ///
    /// ## Why is this bad?
    /// Dynamo traces numpy arrays as tensors (through `torch._numpy`) and implements their
    /// attributes one by one; `dtype`, `base` and `flags` are refused
    /// (`NumpyNdarrayVariable.var_getattr` in `torch/_dynamo/variables/tensor.py`, torch 2.2 to
    /// 2.11). Measured with `backend="eager"` on arrays passed in: the graph breaks at the read
    /// (torch 2.11: GB0157 "Unsupported ndarray attribute access"; 2.2 and 2.5: "TODO: add
    /// support for ndarray.dtype"; on 2.8 the same line breaks earlier when the comparison sits
    /// in a generator, because 2.8 does not inline `any(...)` over it); with nothing traced
    /// before it in the frame, Dynamo gives up on the whole frame instead. Under
    /// `fullgraph=True` it is an error. A check of the input arrays'
    /// dtypes at the top of a loss or a forward (`if any(a.dtype != np.float32 for a in
    /// targets)`) thus splits every step.
    ///
    /// ## Example
    /// ```python
    /// def loss(self, logits, targets):
    ///     if any(t.dtype != np.float32 for t in targets):
    ///         raise TypeError("targets must be float32")
    ///     ...
    /// ```
    ///
    /// ## Fix
    /// Check the dtypes before the compiled code (in the data pipeline, or in an eager wrapper),
    /// or convert the arrays to tensors first (`torch.as_tensor(a)`) and compare `t.dtype` with a
    /// torch dtype.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (tests/python/test_peer_suite_proofs.py).
    pub struct NdarrayAttributeInRegion {
        code: "BR022",
        name: "ndarray-attribute-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "numpy array's .dtype compared with a numpy dtype in traced code: Dynamo does not trace ndarray.dtype (graph break)",
        hooks: { compare: check_compare },
    }
}

/// `a.dtype == np.float32`: the comparison says `a` is an array. (Arrays the model knows as numpy
/// values are not flagged on their own: one built inside the frame breaks earlier, at its
/// construction, on torch 2.11.)
fn check_compare(checker: &mut Checker<'_>, compare: &ast::ExprCompare) {
    if !checker.semantic().in_function()
        || !compare
            .ops
            .iter()
            .all(|op| matches!(op, ast::CmpOp::Eq | ast::CmpOp::NotEq))
    {
        return;
    }
    let operands: Vec<&Expr> = std::iter::once(&*compare.left)
        .chain(compare.comparators.iter())
        .collect();
    let Some(numpy_dtype) = operands
        .iter()
        .find_map(|operand| numpy_dtype_name(checker, operand))
    else {
        return;
    };
    for operand in &operands {
        if let Expr::Attribute(attribute) = operand
            && attribute.attr.id.as_str() == "dtype"
        {
            let why = format!("its dtype is compared with `{numpy_dtype}`");
            report(checker, attribute, &why);
        }
    }
}

/// `np.float32`, `np.uint8`: the qualified numpy scalar type. (A `np.dtype(...)` object on the
/// right-hand side was not measured to break the same way: left out.)
fn numpy_dtype_name(checker: &Checker<'_>, expr: &Expr) -> Option<String> {
    if !matches!(expr, Expr::Attribute(_) | Expr::Name(_)) {
        return None;
    }
    let qualified = checker.semantic().qualified(expr)?;
    let dtype = qualified.strip_prefix("numpy.")?;
    let is_dtype = matches!(
        dtype,
        "bool_"
            | "int8"
            | "int16"
            | "int32"
            | "int64"
            | "uint8"
            | "uint16"
            | "uint32"
            | "uint64"
            | "float16"
            | "float32"
            | "float64"
            | "complex64"
            | "complex128"
            | "intp"
            | "longlong"
            | "double"
            | "single"
            | "half"
    );
    is_dtype.then(|| qualified.replacen("numpy.", "np.", 1))
}

fn report(checker: &mut Checker<'_>, attribute: &ast::ExprAttribute, why: &str) {
    let attr = attribute.attr.id.as_str();
    debug_assert_eq!(attr, "dtype");
    let label = super::graph_break_label("Unsupported ndarray attribute access");
    checker.report(
        &NdarrayAttributeInRegion::META,
        Finding::new(
            attribute.range(),
            format!(
                "`.{attr}` of a numpy array in traced code ({why}): Dynamo does not trace `ndarray.{attr}`, the graph breaks here ({label}). Check it before the compiled code, or on a tensor"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
