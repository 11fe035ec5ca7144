use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::summary::Hazard;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags `torch._shape_as_tensor(x)` results (or slices of them) passed in a list to
    /// `torch.stack` / `torch.cat` (and friends), or used as tensors (`.prod()`, `.to(...)`),
    /// inside code Dynamo traces.
    ///
    /// ## Why is this bad?
    /// Dynamo models `torch._shape_as_tensor(x)` as a `torch.Size`, not a tensor. The stack then
    /// receives a list of sizes and tracing fails with
    /// `TypeError: expected Tensor as element 0 in argument 0, but got torch.Size`; a tensor method
    /// on it fails with `AttributeError: 'torch.Size' object has no attribute ...`.
    /// (`torch.tensor(...)` / `torch.as_tensor(...)` of it trace fine and are not flagged.)
    /// Eager mode works, so the bug only appears once `torch.compile` is switched on, and
    /// `torch._dynamo.config.suppress_errors = True` does not help: the error is raised by user code.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, feats):
    ///     sizes = torch.stack([torch._shape_as_tensor(f)[2:4] for f in feats])
    /// ```
    ///
    /// ## Fix
    /// Build the sizes from `f.shape`, which Dynamo tracks symbolically:
    /// ```python
    ///     sizes = torch.tensor([list(f.shape[2:4]) for f in feats], device=feats[0].device)
    /// ```
    /// or keep `_shape_as_tensor` for export only, behind
    /// `if torch.compiler.is_exporting() and not torch.compiler.is_compiling():`.
    ///
    /// ## Torch versions
    /// Measured on torch 2.9 and 2.11 (and reported on 2.13); applies to every version with Dynamo.
    pub struct ShapeAsTensorStack {
        code: "CR001",
        name: "shape-as-tensor-stack",
        family: Crash,
        scope: CompiledRegion,
        torch_versions: ">=2.0",
        fix_available: false,
        summary: "`torch._shape_as_tensor` fed to torch.stack/cat or used as a tensor crashes Dynamo (it becomes a torch.Size)",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    // `torch._shape_as_tensor(x).prod()`: under Dynamo the receiver is a torch.Size (a tuple), which
    // has no tensor methods. (`torch.tensor(...)` of it is fine: measured on torch 2.11.)
    if let Expr::Attribute(attribute) = &*call.func {
        let method = attribute.attr.id.as_str();
        if !matches!(method, "count" | "index" | "numel")
            && semantic.is_shape_as_tensor_value(&attribute.value)
        {
            checker.report(
                &ShapeAsTensorStack::META,
                Finding::new(
                    call.range(),
                    format!(
                        "`.{method}()` on `torch._shape_as_tensor(...)`: Dynamo turns it into a `torch.Size`, which has no `.{method}()` (AttributeError while tracing)"
                    ),
                )
                .with_hazard(Hazard::Crash),
            );
            return;
        }
    }
    let (Expr::Attribute(_) | Expr::Name(_)) = &*call.func else {
        return;
    };
    let Some(qualified) = qualified else {
        return;
    };
    if !TORCH.stackers.contains(qualified) {
        return;
    }
    let sequence = call
        .arguments
        .args
        .first()
        .or_else(|| call.arguments.find_keyword("tensors").map(|k| &k.value));
    let Some(sequence) = sequence else { return };
    if !semantic.is_shape_tensor_sequence(sequence) {
        return;
    }
    let message = format!(
        "`{qualified}` of `torch._shape_as_tensor(...)` results: Dynamo turns them into `torch.Size` and tracing fails with `TypeError: expected Tensor ... got torch.Size`"
    );
    checker.report(
        &ShapeAsTensorStack::META,
        Finding::new(call.range(), message).with_hazard(Hazard::Crash),
    );
}
