use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::summary::Hazard;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags `str(t)` and `repr(t)` of a tensor inside a function Dynamo traces (`repr` also of a
    /// tuple of tensors or of the named tuple `torch.max(x, dim=0)` / `torch.sort(x)` return).
    ///
    /// ## Why is this bad?
    /// A tensor's text needs its values, which only exist when the graph runs; Dynamo cannot
    /// constant-fold `str`/`repr` of a traced tensor and stops. Measured with `backend="eager"`:
    /// `str(t)` and `repr(t)` break on torch 2.2, 2.5, 2.8 and 2.11 (2.8 and 2.11: GB0059 "Failed
    /// to trace builtin operator"; 2.2/2.5: "call_function BuiltinVariable(str)" / "builtin: str
    /// [TensorVariable]"), as does `str` of a tuple of tensors; `repr` of a torch named-tuple
    /// result breaks on every version (2.11: GB9198 "Attempted to call repr() method implemented
    /// in C/C++"). A message built for an exception (`raise cls(str(x))`) or a log line thus
    /// costs a graph break, and under `fullgraph=True` an error. Not flagged: `str` of a
    /// named-tuple result (it compiles on 2.11), f-strings (`f"{t}"` compiles on 2.5, 2.8 and
    /// 2.11; on 2.2 `fullgraph=True` refuses it too), and text of `t.shape` / `t.dtype` (constants to Dynamo).
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     y = self.proj(x)
    ///     self.last = str(y)
    ///     return y
    /// ```
    ///
    /// ## Fix
    /// Keep the tensor's text out of traced code (log it after the compiled call), or use text of
    /// its metadata (`str(y.shape)`).
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (tests/python/test_peer_suite_proofs.py).
    pub struct TensorToStringInRegion {
        code: "BR023",
        name: "tensor-to-string-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "str()/repr() of a tensor in traced code: Dynamo cannot build a traced tensor's text (graph break)",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, _qualified: Option<&str>) {
    let semantic = checker.semantic();
    let builtin = if semantic.is_builtin(&call.func, "str") {
        "str"
    } else if semantic.is_builtin(&call.func, "repr") {
        "repr"
    } else {
        return;
    };
    if !semantic.in_function()
        || call.arguments.args.len() != 1
        || !call.arguments.keywords.is_empty()
    {
        return;
    }
    let value = &call.arguments.args[0];
    if semantic.tensor_kind(value) != TensorKind::Tensor {
        return;
    }
    // `str` of a torch named-tuple result compiles on 2.11: for `str`, only a value that is
    // plainly one tensor (arithmetic, a local holding it, a call torch annotates as one tensor).
    if builtin == "str" && !plainly_one_tensor(checker, value) {
        return;
    }
    let label = super::graph_break_label("Failed to trace builtin operator");
    checker.report(
        &TensorToStringInRegion::META,
        Finding::new(
            call.range(),
            format!(
                "`{builtin}()` of a tensor in traced code: its text needs the values, which exist only when the graph runs; Dynamo stops here ({label}). Build the text outside the compiled code, or from `.shape`/`.dtype`"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}

/// The value is one tensor, not possibly a tuple or named tuple of them.
fn plainly_one_tensor(checker: &Checker<'_>, value: &Expr) -> bool {
    let semantic = checker.semantic();
    let value = match value {
        Expr::Name(name) => semantic.local_value(name.id.as_str()).unwrap_or(value),
        _ => value,
    };
    match value {
        Expr::Call(call) => semantic
            .qualified(&call.func)
            .and_then(|qualified| TORCH.generated.return_types.latest(&qualified))
            .is_some_and(|returns| returns.returns == "tensor"),
        Expr::BinOp(_) | Expr::UnaryOp(_) | Expr::Name(_) => true,
        _ => false,
    }
}
