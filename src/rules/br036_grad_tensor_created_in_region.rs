use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::summary::Hazard;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags, in code Dynamo traces, a call of a torch function that returns a tensor with
    /// `requires_grad=True`: `torch.zeros(n, requires_grad=True)`,
    /// `torch.zeros_like(x, requires_grad=True)`, `torch.tensor(data, requires_grad=True)`,
    /// `torch.randn(..., requires_grad=True)`.
    ///
    /// A function counts when torch's annotations say it returns a tensor
    /// (`rules/data/return_types.toml`). Only the literal `True` is flagged: with
    /// `requires_grad=False` (or a value Dynamo reads as false, such as `self.training` in
    /// eval mode) the call traces. `nn.Parameter(...)` is BR009's.
    ///
    /// ## Why is this bad?
    /// Dynamo checks every torch call it puts in the graph: when the result is a tensor and the
    /// call's `requires_grad` keyword is a true constant, it breaks the graph — a new leaf that
    /// requires grad cannot be created inside a compiled graph. Measured the same on torch 2.2,
    /// 2.5, 2.8 ("factory functions that return tensors that require grad are not supported")
    /// and 2.11 ("Attempted to use tensor creation function with requires_grad=True"),
    /// backend "eager", fullgraph=True.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, features):
    ///     queries = torch.zeros_like(self.query_embed, requires_grad=True)  # graph break
    ///     return self.decoder(queries, features)
    /// ```
    ///
    /// ## Fix
    /// Create the leaf outside the compiled code (a parameter or buffer of the module, built in
    /// `__init__`), or create it without `requires_grad` inside: a tensor computed from
    /// parameters already carries gradients.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11: a graph break on each.
    pub struct GradTensorCreatedInRegion {
        code: "BR036",
        name: "grad-tensor-created-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "torch function returning a tensor called with requires_grad=True in traced code (torch.zeros(n, requires_grad=True)): graph break",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let Some(name) = qualified else {
        return;
    };
    if !name.starts_with("torch.") || !checker.semantic().in_function() {
        return;
    }
    let Some(keyword) = call.arguments.find_keyword("requires_grad") else {
        return;
    };
    if !matches!(&keyword.value, Expr::BooleanLiteral(literal) if literal.value) {
        return;
    }
    if !TORCH
        .generated
        .return_types
        .latest(name)
        .is_some_and(|returns| returns.is_tensor())
    {
        return;
    }
    let label = super::graph_break_label(
        "Attempted to use tensor creation function with requires_grad=True",
    );
    checker.report(
        &GradTensorCreatedInRegion::META,
        Finding::new(
            call.range(),
            format!(
                "`{name}(..., requires_grad=True)` in traced code: Dynamo cannot create a leaf that requires grad inside a graph, graph break under torch.compile ({label}); create it outside the compiled code (a parameter or buffer)"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
