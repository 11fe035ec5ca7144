use crate::rules::declare_rule;
use crate::scan::analyze::Analyzer;
use crate::semantic::summary::Scope;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags Python control flow — `if`, `elif`, `while`, conditional expressions — whose test is
    /// the value of a tensor (`if x.sum() > 0:`, `if mask.any():`, `while err > tol:`), in code
    /// Dynamo traces.
    ///
    /// ## Why is this bad?
    /// The branch taken depends on data that only exists on the device. Dynamo cannot trace both
    /// sides, so it breaks the graph at the test (a "data-dependent jump"), runs the comparison
    /// eagerly, and reads the value back to the host — a device sync on CUDA. Each call site costs
    /// an extra graph and a round trip every step.
    ///
    /// Shape tests (`x.shape[0] > 1`, `x.dim() == 4`), `is None`, `isinstance`, `len()` and
    /// `self.training` are host values and are not flagged.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     if (x > 0).any():
    ///         x = x * 2
    /// ```
    ///
    /// ## Fix
    /// Compute both sides and select with `torch.where`, or use `torch.cond` for real branches:
    /// ```python
    ///     x = torch.where((x > 0).any(), x * 2, x)
    /// ```
    ///
    /// ## Torch versions
    /// All versions with Dynamo (2.0+).
    pub struct TensorTruthinessBranch {
        code: "BR001",
        name: "tensor-truthiness-branch",
        family: Break,
        torch_versions: ">=2.0",
        fix_available: false,
        summary: "Python if/while on a tensor value: data-dependent graph break and device sync",
    }
}

pub fn check_test(analyzer: &mut Analyzer<'_>, test: &Expr) {
    if !analyzer.in_function() || !analyzer.truthiness_reads_tensor(test) {
        return;
    }
    check_operand(analyzer, test);
}

/// Reports the operand whose truth reads a tensor. In `a and b` / `a or b`, `b` is evaluated only
/// when `a` is True / False, so `not is_compiling() and mask.any()` never reaches the tensor under
/// Dynamo: the earlier operands become guards for the later ones.
fn check_operand(analyzer: &mut Analyzer<'_>, test: &Expr) {
    match test {
        Expr::BoolOp(boolop) => {
            let and = boolop.op == ast::BoolOp::And;
            let mut saved = Vec::with_capacity(boolop.values.len());
            for value in &boolop.values {
                if analyzer.truthiness_reads_tensor(value) {
                    check_operand(analyzer, value);
                }
                saved.push(analyzer.enter_guard(value, and));
            }
            if let Some(&first) = saved.first() {
                analyzer.leave_guards(first);
            }
        }
        Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => {
            check_operand(analyzer, &unary.operand)
        }
        _ => report(analyzer, test),
    }
}

fn report(analyzer: &mut Analyzer<'_>, test: &Expr) {
    analyzer.report(
        &TensorTruthinessBranch::META,
        test.range(),
        "branch on a tensor value: Dynamo breaks the graph here (data-dependent jump) and the host waits for the device".to_owned(),
        None,
        Scope::CompiledRegion,
        true,
    );
}
