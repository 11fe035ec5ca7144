use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast as ast;
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags `nn.Parameter(...)` and `nn.Buffer(...)` constructed in code Dynamo traces —
    /// typically in the `__init__` of a module that a forward or loss function builds on every
    /// call (`criterion = SetCriterion(...)` inside the loss).
    ///
    /// ## Why is this bad?
    /// Dynamo cannot create parameters or buffers inside a graph. Measured on torch 2.11
    /// (backend="eager"): `nn.Parameter(t)` breaks with GB0264 "Attempted to use
    /// `torch.nn.Parameter()` constructor with Dynamo", `nn.Buffer(t)` with GB0116 "Unexpected type
    /// in sourceless builder", each followed by GB0119 "Uninitialized nn.Module" for the module
    /// being built. `self.register_buffer(name, t)` traces (not flagged). In a DETR-style loss
    /// this was one of the runtime breaks no other rule predicted.
    ///
    /// ## Example
    /// ```python
    /// class SetCriterion(nn.Module):
    ///     def __init__(self, num_classes):
    ///         super().__init__()
    ///         self.empty_weight = nn.Buffer(torch.ones(num_classes + 1))
    ///
    /// def loss_fn(logits, labels):
    ///     criterion = SetCriterion(91)
    /// ```
    ///
    /// ## Fix
    /// Build the module once, outside the compiled function (in the model's `__init__`), or use
    /// `register_buffer`; keep constant tensors as plain tensors.
    ///
    /// ## Torch versions
    /// Measured on torch 2.11.
    pub struct ParameterCreatedInRegion {
        code: "BR009",
        name: "parameter-created-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.11",
        fix_available: false,
        summary: "nn.Parameter / nn.Buffer constructed in traced code (a module built per call): graph break",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let (what, code) = match qualified {
        Some("torch.nn.Parameter" | "torch.nn.parameter.Parameter") => ("nn.Parameter", "GB0264"),
        Some("torch.nn.Buffer" | "torch.nn.parameter.Buffer") => ("nn.Buffer", "GB0116"),
        _ => return,
    };
    if !checker.semantic().in_function() {
        return;
    }
    checker.report(
        &ParameterCreatedInRegion::META,
        Finding::new(
            call.range(),
            format!(
                "`{what}(...)` constructed in traced code: Dynamo cannot create it inside a graph, graph break under torch.compile ({code}); build the module outside the compiled function"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
