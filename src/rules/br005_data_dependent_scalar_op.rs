use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags torch ops that return a Python `bool` computed from tensor values, in code Dynamo
    /// traces: `torch.equal(a, b)` / `a.equal(b)`, `torch.allclose(a, b)` / `a.allclose(b)` and
    /// `torch.is_nonzero(t)`.
    ///
    /// ## Why is this bad?
    /// The result is a host value that depends on the data, so Dynamo cannot keep it symbolic: it
    /// ends the graph, runs the op eagerly and resumes (torch 2.11: GB0033 "Data dependent
    /// operator", `aten.equal.default` "has a non-Tensor output"; torch 2.2 broke the same way).
    /// On an accelerator it is also a device→host sync. Typical in model code as a guard such as
    /// `if torch.equal(mask, full_mask): ...` or an `assert torch.allclose(...)` left in a forward.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x, mask):
    ///     if torch.equal(mask, torch.ones_like(mask)):
    ///         return self.fast(x)
    /// ```
    ///
    /// ## Fix
    /// Compute on tensors (`torch.where((a == b).all(), ...)`), move the check out of the compiled
    /// function, or keep it eager-only under `if not torch.compiler.is_compiling():`.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2 and 2.11.
    pub struct DataDependentScalarOp {
        code: "BR005",
        name: "data-dependent-scalar-op",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "torch.equal / allclose / is_nonzero in traced code: a data-dependent Python bool, graph break",
        hooks: { call: check_call },
    }
}

const FUNCTIONS: &[&str] = &["torch.equal", "torch.allclose", "torch.is_nonzero"];
const METHODS: &[&str] = &["equal", "allclose"];

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let what = match qualified {
        Some(q) if FUNCTIONS.contains(&q) => format!("`{q}()`"),
        Some(_) => return,
        None => match &*call.func {
            Expr::Attribute(attribute)
                if METHODS.contains(&attribute.attr.id.as_str())
                    && call.arguments.args.len() == 1
                    && semantic.receiver_may_be_tensor(&attribute.value, 0) =>
            {
                format!("`.{}()`", attribute.attr.id)
            }
            _ => return,
        },
    };
    checker.report(
        &DataDependentScalarOp::META,
        Finding::new(
            call.range(),
            format!(
                "{what} returns a Python bool computed from tensor values: graph break under torch.compile (GB0033 Data dependent operator)"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
