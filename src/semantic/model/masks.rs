//! Boolean tensor masks: which expressions are known to be a boolean tensor (a comparison of
//! tensors, `isnan`/`logical_*` and their methods, a torch factory given `dtype=torch.bool`, `~`,
//! `&`, `|`, `^` of masks, a local assigned one on some reaching path). Read by the rules that
//! care what indexing with one does (a data-dependent output shape to read through, a masked
//! fill to store through, no host copy for a host mask), and by the call-site record: a call
//! that passes a mask for a parameter (`model/tensor_args.rs`).

use super::SemanticModel;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};

/// Tensor methods whose result has the receiver's dtype (views and rearrangements).
const DTYPE_KEEPING_METHODS: &[&str] = &[
    "view",
    "view_as",
    "reshape",
    "reshape_as",
    "flatten",
    "squeeze",
    "unsqueeze",
    "permute",
    "transpose",
    "expand",
    "expand_as",
    "repeat",
    "flip",
];

impl SemanticModel<'_> {
    /// Is `index` known to be a boolean tensor, used to index `indexed` (a tuple index: a mask
    /// in any position)?
    pub fn is_bool_mask(&self, index: &Expr, indexed: &Expr) -> bool {
        is_bool_mask(self, index, indexed, 0)
    }

    /// The same for one element of a tuple index (a tuple is no mask).
    pub fn is_bool_mask_element(&self, index: &Expr, indexed: &Expr) -> bool {
        is_bool_mask(self, index, indexed, 1)
    }
}

/// Is `index` known to be a boolean tensor (used to index `indexed`)?
fn is_bool_mask(semantic: &SemanticModel<'_>, index: &Expr, indexed: &Expr, depth: u32) -> bool {
    if depth > 8 {
        return false;
    }
    match index {
        Expr::Compare(compare) => {
            let [op] = &*compare.ops else {
                return false;
            };
            use ast::CmpOp;
            if !matches!(
                op,
                CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE | CmpOp::Eq | CmpOp::NotEq
            ) {
                return false;
            }
            let operands = [&*compare.left, &compare.comparators[0]];
            operands
                .iter()
                .any(|o| semantic.tensor_kind(o) == TensorKind::Tensor)
                // A numpy comparison is a boolean array, and Dynamo traces numpy arrays as
                // tensors: `x[cond < 0]` is the same dynamic-shape read.
                || operands.iter().any(|o| semantic.is_numpy_value(o))
                // `boxes[i][labels[i] > -1]`: an element of an unknown container compared, used
                // to index an element of another one (or a tensor). Indexing a Python sequence
                // with a bool is legal but odd; in practice both are lists of tensors.
                || (operands.iter().any(|o| is_unknown_element(semantic, o))
                    && is_element_or_tensor(semantic, indexed))
                // `x[x > 0]`, `boxes[boxes[:, 2] > t]`: a comparison on the indexed array itself
                // (a list would raise on `>`; an int index would not come from it).
                || operands.iter().any(|o| {
                    base_path(o).is_some_and(|r| Some(&r) == base_path(indexed).as_ref())
                        && semantic.tensor_kind(o) != TensorKind::NotTensor
                })
        }
        Expr::Call(call) => match &*call.func {
            // `mask.cpu()`, `mask.detach()`: the same values, still a mask.
            Expr::Attribute(attribute)
                if matches!(
                    attribute.attr.id.as_str(),
                    "cpu" | "detach" | "clone" | "contiguous"
                ) && call.arguments.is_empty() =>
            {
                is_bool_mask(semantic, &attribute.value, indexed, depth + 1)
            }
            // `mask.view(b, n)`, `mask.flatten()`: a view or rearrangement keeps the dtype.
            Expr::Attribute(attribute)
                if DTYPE_KEEPING_METHODS.contains(&attribute.attr.id.as_str()) =>
            {
                is_bool_mask(semantic, &attribute.value, indexed, depth + 1)
            }
            // `x.to(torch.bool)` / `x.to(dtype=torch.bool)`.
            Expr::Attribute(attribute) if attribute.attr.id.as_str() == "to" => {
                call.arguments
                    .find_argument_value("dtype", 0)
                    .is_some_and(|dtype| is_bool_dtype(semantic, dtype))
                    && semantic.receiver_may_be_tensor(&attribute.value, 0)
            }
            Expr::Attribute(attribute) if semantic.qualified(&call.func).is_none() => {
                is_bool_new_tensor(semantic, call)
                    || matches!(
                        attribute.attr.id.as_str(),
                        "isnan"
                            | "isinf"
                            | "isfinite"
                            | "isneginf"
                            | "isposinf"
                            | "logical_and"
                            | "logical_or"
                            | "logical_not"
                            | "logical_xor"
                            | "bool"
                            | "eq"
                            | "ne"
                            | "gt"
                            | "lt"
                            | "ge"
                            | "le"
                            | "isclose"
                    ) && semantic.tensor_kind(&attribute.value) == TensorKind::Tensor
            }
            _ if is_bool_factory(semantic, call) => true,
            _ => semantic.qualified(&call.func).is_some_and(|q| {
                matches!(
                    q.as_str(),
                    "torch.isnan"
                        | "torch.isinf"
                        | "torch.isfinite"
                        | "torch.logical_and"
                        | "torch.logical_or"
                        | "torch.logical_not"
                        | "torch.logical_xor"
                        | "torch.isin"
                        | "torch.isclose"
                        | "torch.eq"
                        | "torch.ne"
                        | "torch.gt"
                        | "torch.lt"
                        | "torch.ge"
                        | "torch.le"
                )
            }),
        },
        Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Invert => {
            is_bool_mask(semantic, &unary.operand, indexed, depth + 1)
        }
        Expr::BinOp(binop)
            if matches!(
                binop.op,
                ast::Operator::BitAnd | ast::Operator::BitOr | ast::Operator::BitXor
            ) =>
        {
            is_bool_mask(semantic, &binop.left, indexed, depth + 1)
                || is_bool_mask(semantic, &binop.right, indexed, depth + 1)
        }
        // `mask[:n]`, `mask[:, 0]`: any part of a boolean tensor is one.
        Expr::Subscript(subscript) => is_bool_mask(semantic, &subscript.value, indexed, depth + 1),
        // `boxes[keep, :]`: a mask in any position.
        Expr::Tuple(tuple) if depth == 0 => tuple
            .elts
            .iter()
            .any(|e| is_bool_mask(semantic, e, indexed, depth + 1)),
        // A local assigned from a mask, through further locals (`cond = cond_a & cond_b`); after
        // a join, a mask assigned on any path that reaches here (`if c: m = x > 0 else: m =
        // helper(x)`: Dynamo breaks on the path that holds the mask). The depth bound ends any
        // cycle.
        Expr::Name(name) => semantic
            .local_values(name.id.as_str())
            .iter()
            .any(|value| is_bool_mask(semantic, value, indexed, depth + 1)),
        _ => false,
    }
}

/// `labels[i]`, `scores[:, 0]`: a subscript of a value that may be a tensor (or hold them).
fn is_unknown_element(semantic: &SemanticModel<'_>, operand: &Expr) -> bool {
    matches!(operand, Expr::Subscript(subscript)
        if semantic.tensor_kind(&subscript.value) != TensorKind::NotTensor)
}

/// The indexed value is a tensor, or an element of a value that may hold tensors (`boxes[i]`).
fn is_element_or_tensor(semantic: &SemanticModel<'_>, indexed: &Expr) -> bool {
    semantic.tensor_kind(indexed) == TensorKind::Tensor || is_unknown_element(semantic, indexed)
}

/// A torch call that builds a boolean tensor: any `torch.*` function given `dtype=torch.bool`
/// (`torch.zeros(n, dtype=torch.bool)`, `torch.eye(n, dtype=torch.bool)`, `torch.randint(0, 2,
/// shape, dtype=torch.bool)`: a dtype keyword fixes the result's dtype for every torch factory),
/// `torch.full(shape, True)` / `torch.full_like(x, False)` (torch infers `torch.bool` from a bool
/// fill value) and `torch.tensor([True, False])` / `torch.as_tensor(...)` of bool literals.
fn is_bool_factory(semantic: &SemanticModel<'_>, call: &ast::ExprCall) -> bool {
    let Some(qualified) = semantic.qualified(&call.func) else {
        return false;
    };
    if !qualified.starts_with("torch.") {
        return false;
    }
    if let Some(dtype) = call.arguments.find_keyword("dtype") {
        return is_bool_dtype(semantic, &dtype.value);
    }
    match qualified.as_str() {
        "torch.full" | "torch.full_like" => matches!(
            call.arguments.find_argument_value("fill_value", 1),
            Some(Expr::BooleanLiteral(_))
        ),
        "torch.tensor" | "torch.as_tensor" => match call.arguments.find_argument_value("data", 0) {
            Some(
                Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }),
            ) => !elts.is_empty() && elts.iter().all(|e| matches!(e, Expr::BooleanLiteral(_))),
            _ => false,
        },
        _ => false,
    }
}

/// `x.new_zeros(n, dtype=torch.bool)`, `x.new_ones(...)`, `x.new_full(...)`, `x.new_empty(...)`,
/// `x.new_tensor(...)` with a bool dtype, on a receiver that may be a tensor.
fn is_bool_new_tensor(semantic: &SemanticModel<'_>, call: &ast::ExprCall) -> bool {
    let Expr::Attribute(attribute) = &*call.func else {
        return false;
    };
    matches!(
        attribute.attr.id.as_str(),
        "new_zeros" | "new_ones" | "new_full" | "new_empty" | "new_tensor"
    ) && call
        .arguments
        .find_keyword("dtype")
        .is_some_and(|dtype| is_bool_dtype(semantic, &dtype.value))
        && semantic.receiver_may_be_tensor(&attribute.value, 0)
}

/// `torch.bool` (however imported).
fn is_bool_dtype(semantic: &SemanticModel<'_>, dtype: &Expr) -> bool {
    semantic.qualified(dtype).is_some_and(|q| q == "torch.bool")
}

/// The array an expression reads from: `boxes` for `boxes`, `boxes[:, 2]` and `boxes.abs()`;
/// `self.anchors` for `self.anchors[..., 0]`.
fn base_path(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Name(name) => Some(name.id.to_string()),
        Expr::Subscript(subscript) => base_path(&subscript.value),
        Expr::Attribute(attribute) => Some(format!(
            "{}.{}",
            base_path(&attribute.value)?,
            attribute.attr.id
        )),
        Expr::Call(call) => match &*call.func {
            Expr::Attribute(attribute) => base_path(&attribute.value),
            _ => None,
        },
        _ => None,
    }
}
