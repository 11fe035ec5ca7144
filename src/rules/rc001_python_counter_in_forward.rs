use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Requirement;
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags a Python int attribute of the module (`self.calls = 0` in `__init__`) that is
    /// incremented or rebound from itself (`self.calls += 1`, `self.step = self.step + 1`) in code
    /// Dynamo traces.
    ///
    /// ## Why is this bad?
    /// Dynamo specializes on Python numbers it reads from `self`: the compiled graph is guarded on
    /// `self.calls == 3`. Every call changes the value, fails the guard and recompiles — until
    /// `torch._dynamo.config.recompile_limit` (`cache_size_limit` on older torch; default 8) is hit
    /// and the function silently runs eagerly from then on. Measured on torch 2.11: 8 graphs for 12
    /// calls, then eager. A tensor buffer (`register_buffer`) updated in place does not recompile,
    /// and a float attribute is made dynamic after one recompile on torch 2.11 (2 graphs), so
    /// only int attributes are flagged.
    ///
    /// ## Example
    /// ```python
    /// class Model(nn.Module):
    ///     def __init__(self):
    ///         super().__init__()
    ///         self.calls = 0
    ///
    ///     def forward(self, x):
    ///         self.calls += 1
    ///         return x * self.calls
    /// ```
    ///
    /// ## Fix
    /// Keep the counter in a tensor buffer
    /// (`self.register_buffer("calls", torch.zeros((), dtype=torch.long))`, then `self.calls += 1`),
    /// or update it outside the compiled region (in the training loop).
    ///
    /// ## Torch versions
    /// All versions with Dynamo.
    pub struct PythonCounterInForward {
        code: "RC001",
        name: "python-counter-in-forward",
        family: Recompile,
        scope: CompiledRegion,
        torch_versions: ">=2.0",
        fix_available: false,
        summary: "Python int attribute bumped in forward: recompiles every call until the recompile limit, then eager",
        hooks: { statement: check_statement },
    }
}

/// `self.attr += ...` or `self.attr = self.attr + ...` in a method, reported when some method sets
/// `self.attr` to a Python int (known once the file is walked; a tensor buffer is fine).
fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let semantic = checker.semantic();
    let (target, bumps_itself) = match stmt {
        Stmt::AugAssign(assign) => (&*assign.target, true),
        Stmt::Assign(assign) => {
            let [target] = assign.targets.as_slice() else {
                return;
            };
            let bumps = match &*assign.value {
                Expr::BinOp(binop) => [&*binop.left, &*binop.right]
                    .into_iter()
                    .any(|side| semantic.self_attribute(side) == semantic.self_attribute(target)),
                _ => false,
            };
            (target, bumps)
        }
        _ => return,
    };
    if !bumps_itself || !semantic.in_function() {
        return;
    }
    let Some((class, attr)) = semantic.self_attribute(target) else {
        return;
    };
    let finding = Finding::new(stmt.range(), message(&attr))
        .requiring(Requirement::IntAttribute { class, attr });
    checker.report(&PythonCounterInForward::META, finding);
}

fn message(attr: &str) -> String {
    format!(
        "`self.{attr}` is a Python int changed on every call: Dynamo guards on its value and recompiles each call until the recompile limit (8), then runs eagerly; keep it in a tensor buffer"
    )
}
