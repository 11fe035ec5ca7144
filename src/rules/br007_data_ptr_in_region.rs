use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags `tensor.data_ptr()` in code Dynamo traces (aliasing checks such as
    /// `a.data_ptr() == b.data_ptr()`, caches keyed by the pointer).
    ///
    /// ## Why is this bad?
    /// Under Dynamo the pointer is not a Python int. Measured on torch 2.11 (backend="eager"):
    /// comparing it fails with GB0023 ("Builtin `operator.*` comparison ... failed") and hashing
    /// it (a dict key) with GB0365, and in both cases Dynamo gives up on the **whole frame**: the
    /// function runs eagerly and nothing of it is compiled. On torch 2.2 it was a plain graph
    /// break ("Tensor.data_ptr"). Storage identity is also not stable under compile (Inductor
    /// reuses and reallocates buffers), so the check means something else there.
    ///
    /// `id(tensor)` is not flagged: torch 2.11 traces it (2.2 broke the graph).
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     if x.data_ptr() == self.cached.data_ptr():
    ///         return self.cached_out
    /// ```
    ///
    /// ## Fix
    /// Do aliasing checks and pointer-keyed caching outside the compiled function, or keep them
    /// eager-only under `if not torch.compiler.is_compiling():`.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2 (graph break) and 2.11 (whole frame runs eagerly).
    pub struct DataPtrInRegion {
        code: "BR007",
        name: "data-ptr-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "tensor.data_ptr() in traced code: Dynamo cannot compare or hash it (the whole frame runs eagerly on 2.11)",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let semantic = checker.semantic();
    if qualified.is_some() || !semantic.in_function() || !call.arguments.is_empty() {
        return;
    }
    let Expr::Attribute(attribute) = &*call.func else {
        return;
    };
    if attribute.attr.id.as_str() != "data_ptr"
        || !semantic.receiver_may_be_tensor(&attribute.value, 0)
    {
        return;
    }
    checker.report(
        &DataPtrInRegion::META,
        Finding::new(
            call.range(),
            "`.data_ptr()` in traced code: Dynamo cannot compare (GB0023) or hash (GB0365) the pointer and runs the whole frame eagerly on torch 2.11 (a graph break on 2.2)",
        )
        .with_hazard(Hazard::FrameSkip),
    );
}
