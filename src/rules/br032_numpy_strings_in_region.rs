use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags a numpy call in traced code whose first argument is a list or tuple literal holding
    /// a string (`np.asarray(["L", "U"])`, `np.array(("a", "b"))`, `np.random.choice(["x", "y"])`).
    ///
    /// ## Why is this bad?
    /// Dynamo traces numpy by running it on torch tensors (`torch._numpy`); a string has no torch
    /// dtype, so the traced call fails under fake tensors and Dynamo falls back. Measured with
    /// `backend="eager"`: the graph breaks at the call on torch 2.2, 2.5, 2.8 and 2.11 (2.11:
    /// GB0087 "NotImplementedError/UnsupportedFakeTensorException when running FX node"; before:
    /// "running call_function <Wrapped function <original asarray>>"). The same call over numbers
    /// compiles.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     labels = np.asarray(["background", "object"])
    ///     return x, labels
    /// ```
    ///
    /// ## Fix
    /// Build the string array once outside the compiled function (a module-level constant), or
    /// keep the strings in a Python list.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (tests/python/test_call_site_kind_proofs.py).
    pub struct NumpyStringsInRegion {
        code: "BR032",
        name: "numpy-strings-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "numpy call over a literal holding strings in traced code: Dynamo runs numpy on torch tensors, which hold no strings (graph break)",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let Some(qualified) = qualified else { return };
    if !qualified.starts_with("numpy.") {
        return;
    }
    let elements = match call.arguments.args.first() {
        Some(Expr::List(list)) => &list.elts,
        Some(Expr::Tuple(tuple)) => &tuple.elts,
        _ => return,
    };
    if !elements.iter().any(|e| matches!(e, Expr::StringLiteral(_))) {
        return;
    }
    let label = super::graph_break_label(
        "NotImplementedError/UnsupportedFakeTensorException when running FX node",
    );
    checker.report(
        &NumpyStringsInRegion::META,
        Finding::new(
            call.range(),
            format!(
                "`{qualified}(...)` over strings in traced code: Dynamo runs numpy on torch tensors, which hold no strings; the graph breaks here (torch 2.11: {label}). Build the array outside the compiled function"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
