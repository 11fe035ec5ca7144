use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::summary::Hazard;
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags, in code Dynamo traces, a store to a tensor attribute Dynamo refuses to set:
    /// `x.requires_grad = True` (and the others `rules/data/tensor_attribute_stores.toml` lists,
    /// such as `t.real = ...`), on a value that may be a tensor.
    ///
    /// ## Why is this bad?
    /// Dynamo does not trace the store, on a tensor input or on a tensor the function computed
    /// alike: the graph breaks there (GB0206 "setattr() on Tensor.requires_grad" on torch 2.11;
    /// "builtin: setattr" on 2.5, "call_function BuiltinVariable(setattr)" on 2.2). The attributes
    /// are generated from torch: every settable data descriptor of `torch.Tensor`, stored in a
    /// compiled function (`fullgraph=True`, backend "eager") on its input and on a computed
    /// tensor, on torch 2.2, 2.5, 2.8 and 2.11 (`scripts/torch_data/gen_tensor_attribute_stores.py`);
    /// `.data` is BR033's (refused only on a computed tensor).
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     x.requires_grad = True      # graph break
    ///     return self.net(x)
    /// ```
    ///
    /// ## Fix
    /// Set it before the compiled call (on the input), or build the tensor with
    /// `requires_grad=True` outside the compiled code.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (tests/python/test_tensor_attribute_stores_table.py).
    pub struct TensorAttributeStore {
        code: "BR042",
        name: "tensor-attribute-store",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "store to a tensor attribute Dynamo does not trace (x.requires_grad = True) in traced code: graph break",
        hooks: { statement: check_statement },
    }
}

fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::Assign(assign) = stmt else { return };
    if !checker.semantic().in_function() {
        return;
    }
    for target in &assign.targets {
        let semantic = checker.semantic();
        let Expr::Attribute(attribute) = target else {
            continue;
        };
        let spelling = format!("Tensor.{}", attribute.attr.id);
        let Some(entry) = TORCH
            .generated
            .tensor_attribute_stores
            .on_every_from(&spelling, semantic.torch_floor())
        else {
            continue;
        };
        if !semantic.receiver_may_be_tensor(&attribute.value, 0) {
            continue;
        }
        let label = super::graph_break_label(entry.gb_type.as_deref().unwrap_or(""));
        let message = format!(
            "`.{}` set on a tensor in traced code: Dynamo does not trace the store, graph break under torch.compile ({label}); set it outside the compiled code",
            attribute.attr.id
        );
        checker.report(
            &TensorAttributeStore::META,
            Finding::new(target.range(), message).with_hazard(Hazard::GraphBreak),
        );
    }
}
