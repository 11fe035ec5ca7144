use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast as ast;
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags `obj.__class__ = Cls` in code Dynamo traces: swapping the class of an object (a
    /// local, a global, a parameter, `self`, a submodule) inside `forward` or a helper it calls.
    ///
    /// ## Why is this bad?
    /// Changing an object's class changes every attribute lookup and method Dynamo already
    /// resolved and guarded on, so Dynamo refuses the store: measured on torch 2.11 with
    /// `backend="eager"`, `fullgraph=True`, the graph breaks at the assignment (GB4271
    /// "__class__ assignment on user-defined object") on a local object, a global, a parameter
    /// and an `nn.Module` (`self.__class__ = ...`, `mod.__class__ = ...`); on a tensor it is
    /// GB0058 "Failed to set tensor attribute". Reading `obj.__class__` traces and is not flagged.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     self.__class__ = FastBlock   # GB4271: the graph breaks here
    ///     return x + 1
    /// ```
    ///
    /// ## Fix
    /// Swap the class once, outside the compiled code (after construction, before
    /// `torch.compile`), or keep one class and branch on a plain attribute.
    ///
    /// ## Torch versions
    /// Measured on torch 2.11 (tests/python/test_class_assignment_proofs.py); torch's registry
    /// names the type from 2.11. Older torch was not measured (no 2.2–2.8 interpreter on the
    /// host this rule was written on).
    pub struct ClassAssignmentInRegion {
        code: "BR034",
        name: "class-assignment-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.11",
        fix_available: false,
        summary: "`obj.__class__ = ...` in traced code: Dynamo refuses to change an object's class (graph break)",
        hooks: { attribute: check_attribute },
    }
}

/// Dynamo's types for the refused store (torch 2.11's registry): on any object but a tensor, and
/// on a tensor.
const GB_TYPE_OBJECT: &str = "__class__ assignment on user-defined object";
const GB_TYPE_TENSOR: &str = "Failed to set tensor attribute";

fn check_attribute(checker: &mut Checker<'_>, attribute: &ast::ExprAttribute) {
    if !attribute.ctx.is_store() || attribute.attr.id.as_str() != "__class__" {
        return;
    }
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let gb_type = match semantic.tensor_kind(&attribute.value) {
        TensorKind::Tensor => GB_TYPE_TENSOR,
        _ => GB_TYPE_OBJECT,
    };
    let label = super::graph_break_label(gb_type);
    checker.report(
        &ClassAssignmentInRegion::META,
        Finding::new(
            attribute.range(),
            format!(
                "`__class__` assigned in traced code: Dynamo does not let an object change its class while tracing, graph break under torch.compile ({label}); swap the class before compiling, outside the traced code"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
