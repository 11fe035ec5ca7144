use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast as ast;
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags `t.data = ...` in code Dynamo traces when `t` is a tensor computed in that frame:
    /// a factory's or an op's result (`z = torch.zeros(n)`, `z = x * 2`), a tensor method's
    /// result (`x.detach()`, `x.float()`, `x.mul_(2)`), or a slice or view of a tensor
    /// (`x[0:2]`, `x.view(-1)`).
    ///
    /// ## Why is this bad?
    /// Dynamo traces a `.data` store as `Tensor.set_` only on a tensor it can name outside the
    /// frame (one with a *source*: an input, a parameter, a buffer, a global's tensor). A tensor
    /// the frame computed has none, so the store ends the graph: torch 2.8 and 2.11 say GB0056
    /// "Failed to mutate tensor data attribute" ("Dynamo only supports mutating `.data` of tensor
    /// created outside `torch.compile` region"); torch 2.2 and 2.5 refuse the same
    /// `setattr(tensor, "data", ...)` call with an unsupported-call break. Measured with
    /// `fullgraph=True`, backend "eager", on 2.2, 2.5, 2.8 and 2.11: a store on an input, a
    /// parameter or a buffer (same dtype), a `.data` read and `t.data.copy_(...)` all trace and
    /// are not flagged.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     z = torch.zeros(4, 4)
    ///     z.data = x.data        # GB0056: z was computed in the compiled frame
    ///     return z * x
    /// ```
    ///
    /// ## Fix
    /// Rebind the local instead (`z = x.detach()`), or copy in place (`z.copy_(x)` under
    /// `torch.no_grad()`); store `.data` only on inputs, parameters and buffers.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (the GB code from 2.8, whose registry has it).
    pub struct DataStoreOnComputedTensor {
        code: "BR033",
        name: "data-store-on-computed-tensor",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "`t.data = ...` on a tensor computed in traced code (no source Dynamo can name): graph break",
        hooks: { attribute: check_attribute },
    }
}

/// Dynamo's type for the refused store (the registry names it from torch 2.8).
const GB_TYPE: &str = "Failed to mutate tensor data attribute";

fn check_attribute(checker: &mut Checker<'_>, attribute: &ast::ExprAttribute) {
    if !attribute.ctx.is_store() || attribute.attr.id.as_str() != "data" {
        return;
    }
    let semantic = checker.semantic();
    if !semantic.in_function() || !semantic.is_tensor_computed_in_frame(&attribute.value) {
        return;
    }
    let label = super::graph_break_label(GB_TYPE);
    checker.report(
        &DataStoreOnComputedTensor::META,
        Finding::new(
            attribute.range(),
            format!(
                "`.data` stored on a tensor computed in traced code: Dynamo can mutate `.data` only of a tensor created outside the compiled region (an input, a parameter, a buffer), graph break under torch.compile ({label}); rebind the name (`z = x.detach()`) instead"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
