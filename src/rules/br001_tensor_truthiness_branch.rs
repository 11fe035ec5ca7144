use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{Expr, Stmt, UnaryOp};
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
    /// eagerly, and reads the value back to the host — a device sync on CUDA (none for a tensor
    /// built on the host, such as `torch.rand(1) < p`; the message says which). Each call site
    /// costs an extra graph and a round trip every step. Inside the body of a `for` / `while`
    /// loop it is worse: Dynamo cannot resume in the middle of a loop, so it skips the whole frame
    /// and the function runs eagerly (measured on torch 2.2 and 2.11: 0 graphs).
    ///
    /// A module attribute is a tensor when every assignment of it in the class (or a base class
    /// of the same file) gives it one: `self.register_buffer("ready", torch.tensor(False))`,
    /// `self.w = nn.Parameter(...)`, `self.w = torch.zeros(1)`. Dynamo treats buffers,
    /// parameters and plain tensor attributes as graph tensors, so `if self.ready:` and `if
    /// self.training and self.w > 0:` break like any other tensor test (measured on torch 2.2,
    /// 2.5, 2.8 and 2.11, eval and train mode). An attribute also assigned anything else
    /// (`self.w = 0.0` in another method, `register_buffer("w", None)`) is not assumed a tensor.
    ///
    /// A parameter the body alone cannot type (`def fn(x, check): if check:`) is a tensor where a
    /// call gives it one: a call of the compiled function (`opt = torch.compile(fn)` or
    /// `torch._dynamo.optimize(backend)(fn)`, then `opt(x, torch.ones(1))`, positional or keyword;
    /// an `@torch.compile` function called) or a call from traced code that passes a tensor, or
    /// its own such parameter, on (`helper(x, mask)`). Dynamo wraps the argument it receives, so
    /// the test breaks in that context; given a Python value instead it specializes on the
    /// constant and does not break (measured on torch 2.11). The finding names the parameter.
    /// Likewise a local bound to what a project function returns (`n = count(x)`, or one element
    /// of a returned tuple): a tensor where a `return` of the callee hands one back there, built
    /// in the callee or from a parameter this call passes a tensor for (`return (x > 0).sum()`);
    /// the finding names the local and the callee (measured on torch 2.2, 2.5, 2.8 and 2.11).
    ///
    /// `assert` on a tensor value is flagged only where Dynamo cannot rewrite it. Dynamo turns
    /// the assert's last jump into `torch._assert_async` and keeps tracing when that jump takes
    /// the test as it is and the message is absent or a constant string
    /// (`_detect_and_normalize_assert_statement`). Every other tensor test in an assert is a
    /// data-dependent jump like an `if`: any test under a computed message (an f-string, a `%`
    /// format), a negated test (`assert not torch.isnan(loss)`, which Python compiles to an
    /// inverted jump), and a test before `and` / `or` (`assert t.all() and u.all()`: the first
    /// jump is not the assert's last). Measured on torch 2.2, 2.5, 2.8 and 2.11 (Python 3.11):
    /// one break each; `assert ~torch.isnan(loss)` and `assert t.all() & u.all()` compile whole.
    ///
    /// The builtins `all(t)` / `any(t)` over a tensor iterate it and read the truth of each
    /// element: the same data-dependent jump, reported at the branch that tests them (`if
    /// all(keep):` with `keep = torch.rand(n) < p`; measured on torch 2.2, 2.5, 2.8 and 2.11: one
    /// break, and 0 graphs inside a loop). A list or generator argument is not this rule's
    /// (`all([x.dim() == 2, ok])` is host values).
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
        scope: CompiledRegion,
        torch_versions: ">=2.0",
        fix_available: false,
        summary: "Python if/while on a tensor value: data-dependent graph break and device sync",
        hooks: { truth_test: check_operand, statement: check_assert },
    }
}

/// Called for each operand whose truth a branch reads (the checker splits `and`/`or`/`not` and
/// guards later operands by earlier ones: `not is_compiling() and mask.any()` never reaches the
/// tensor under Dynamo).
fn check_operand(checker: &mut Checker<'_>, operand: &Expr) {
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    // `all(t)` / `any(t)`: the tensor whose elements are tested.
    let iterated = iterated_tensor(checker, operand);
    // A parameter the body alone cannot type (`if check:`) is a tensor where a call of the
    // compiled function, or a traced caller, passes one: linking decides (`tensor_params`).
    let mut given_params = None;
    if iterated.is_none() {
        match semantic.tensor_kind(operand) {
            TensorKind::Tensor => {}
            TensorKind::NotTensor => return,
            TensorKind::Unknown => match semantic.tensor_if_inputs_are(operand) {
                Some(params) => given_params = Some(params),
                None => return,
            },
        }
    }
    let tested = iterated.unwrap_or(operand);
    // The sync half holds only for a tensor that can be on an accelerator; in a loop Dynamo
    // cannot resume after the break and gives up on the whole frame (measured on torch 2.2 and
    // 2.11: 0 graphs for a data-dependent `if` inside a `for` or `while` loop).
    let sync = if semantic.is_on_host(tested) {
        "; the value is built on the host, so there is no device sync"
    } else {
        "; on an accelerator the host also waits for the device"
    };
    let (message, hazard) = if semantic.in_loop() {
        (
            format!(
                "branch on a tensor value inside a loop: Dynamo cannot resume mid-loop after this data-dependent jump, so it skips the whole frame and runs the function eagerly{sync}"
            ),
            Hazard::FrameSkip,
        )
    } else {
        (
            format!(
                "branch on a tensor value: Dynamo breaks the graph here (data-dependent jump){sync}"
            ),
            Hazard::GraphBreak,
        )
    };
    let finding = Finding::on_tensor_or_inputs(operand.range(), message, given_params);
    checker.report(&TensorTruthinessBranch::META, finding.with_hazard(hazard));
}

/// The tensor that `all(t)` / `any(t)` iterates: the builtin reads each element's truth, so the
/// test is as data-dependent as `if t.all():`.
fn iterated_tensor<'e>(checker: &Checker<'_>, operand: &'e Expr) -> Option<&'e Expr> {
    let Expr::Call(call) = operand else {
        return None;
    };
    let semantic = checker.semantic();
    let builtin = ["all", "any"]
        .into_iter()
        .any(|name| semantic.is_builtin(&call.func, name));
    if !builtin || call.arguments.args.len() != 1 || !call.arguments.keywords.is_empty() {
        return None;
    }
    let iterated = &call.arguments.args[0];
    (semantic.tensor_kind(iterated) == TensorKind::Tensor).then_some(iterated)
}

/// An assert whose tensor test Dynamo cannot rewrite into `torch._assert_async`
/// (`_detect_and_normalize_assert_statement` rewrites only the assert's last jump, taken when
/// the test is true, with no message or a constant string one): the first tensor operand that is
/// an ordinary data-dependent jump.
fn check_assert(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::Assert(assert) = stmt else {
        return;
    };
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let computed_message = assert
        .msg
        .as_deref()
        .is_some_and(|message| !matches!(message, Expr::StringLiteral(_)));
    // With a computed message no jump is rewritten: every operand is an ordinary one.
    let mut jumps = Vec::new();
    unrewritten_operands(
        &assert.test,
        (!computed_message).then_some(true),
        &mut jumps,
        0,
    );
    if computed_message {
        for (_, jump) in &mut jumps {
            *jump = UnrewrittenJump::ComputedMessage;
        }
    }
    // Python evaluates the operands left to right: the first tensor among them is where the
    // graph breaks (one finding per assert).
    for (operand, jump) in jumps {
        // A test of a parameter the body alone cannot type is a tensor where a traced call
        // passes one, as for a branch (`check_operand`).
        let given_params = match semantic.tensor_kind(operand) {
            TensorKind::Tensor => None,
            TensorKind::NotTensor => continue,
            TensorKind::Unknown => match semantic.tensor_if_inputs_are(operand) {
                Some(params) => Some(params),
                None => continue,
            },
        };
        let why = jump.text();
        let (message, hazard) = if semantic.in_loop() {
            (
                format!(
                    "assert on a tensor value {why}; this one is a data-dependent jump it cannot resume from mid-loop, so it skips the whole frame"
                ),
                Hazard::FrameSkip,
            )
        } else {
            (
                format!(
                    "assert on a tensor value {why}; this one is a data-dependent jump, so the graph breaks here ({})",
                    jump.fix()
                ),
                Hazard::GraphBreak,
            )
        };
        let finding = Finding::on_tensor_or_inputs(operand.range(), message, given_params);
        checker.report(&TensorTruthinessBranch::META, finding.with_hazard(hazard));
        return;
    }
}

/// Why an operand of an assert's test is an ordinary jump rather than the rewritten one.
#[derive(Clone, Copy)]
enum UnrewrittenJump {
    /// `assert not t`: Python compiles the `not` into an inverted jump, which Dynamo does not
    /// recognize as an assert.
    Negated,
    /// `assert t and u` / `assert t or u`: only the assert's last jump is rewritten.
    BeforeLastOperand,
    /// `assert t, f"..."`: only an assert with no message or a constant one is rewritten.
    ComputedMessage,
}

impl UnrewrittenJump {
    fn text(self) -> &'static str {
        match self {
            UnrewrittenJump::Negated => {
                "under `not`: Dynamo rewrites an assert into torch._assert_async only when its last test is taken as it is, and Python compiles `not` into an inverted jump"
            }
            UnrewrittenJump::BeforeLastOperand => {
                "before `and`/`or`: Dynamo rewrites only an assert's last test into torch._assert_async"
            }
            UnrewrittenJump::ComputedMessage => {
                "with a computed message: Dynamo rewrites only asserts with no message or a constant one into torch._assert_async"
            }
        }
    }

    fn fix(self) -> &'static str {
        match self {
            UnrewrittenJump::Negated => "assert the negation as a tensor: `assert ~t`",
            UnrewrittenJump::BeforeLastOperand => {
                "combine tensor tests into one tensor: `assert t.all() & u.all()`, or split the assert"
            }
            UnrewrittenJump::ComputedMessage => "use a constant message, or torch._assert_async",
        }
    }
}

/// The operands of an assert's test that Dynamo reads with an ordinary jump: every operand but the
/// last one Python evaluates, and that one too when it is negated.
///
/// `positive`: `Some(true)` for the assert's last operand taken as it is, `Some(false)` for it
/// negated, `None` for an operand whose jump is never the last one.
fn unrewritten_operands<'e>(
    test: &'e Expr,
    positive: Option<bool>,
    out: &mut Vec<(&'e Expr, UnrewrittenJump)>,
    depth: u32,
) {
    if depth > 48 {
        return;
    }
    match test {
        Expr::UnaryOp(unary) if unary.op == UnaryOp::Not => {
            unrewritten_operands(&unary.operand, positive.map(|p| !p), out, depth + 1)
        }
        Expr::BoolOp(boolop) => {
            if let Some((last, earlier)) = boolop.values.split_last() {
                for operand in earlier {
                    unrewritten_operands(operand, None, out, depth + 1);
                }
                unrewritten_operands(last, positive, out, depth + 1);
            }
        }
        operand => match positive {
            Some(true) => {}
            Some(false) => out.push((operand, UnrewrittenJump::Negated)),
            None => out.push((operand, UnrewrittenJump::BeforeLastOperand)),
        },
    }
}
