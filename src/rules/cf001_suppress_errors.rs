use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags `torch._dynamo.config.suppress_errors = True`, whether assigned, set with `setattr`,
    /// or patched with `torch._dynamo.config.patch(suppress_errors=True)`.
    ///
    /// ## Why is this bad?
    /// With `suppress_errors`, a compile that fails inside Dynamo or the backend falls back to
    /// eager instead of raising: the model "works", the program exits 0, and the speedup never
    /// arrives. The fallback is not silent — at default logging Dynamo logs a `WARNING` "WON'T
    /// CONVERT <function> ..." with the failure's traceback (checked on torch 2.5 and 2.11) — but
    /// nothing fails: an exit status, a test or a CI job never sees it, only someone reading the
    /// logs does. It does not even do what people expect of it: errors raised by user code while
    /// tracing (such as the `_shape_as_tensor` `TypeError`) still propagate. You lose the failure
    /// signal and keep the crash.
    ///
    /// ## Example
    /// ```python
    /// torch._dynamo.config.suppress_errors = True
    /// ```
    ///
    /// ## Fix
    /// Remove it (graphbreak's fix sets it to `False`), and run `graphbreak check` in CI to see
    /// which configs fail to compile and why.
    ///
    /// ## Torch versions
    /// All versions with Dynamo.
    pub struct SuppressErrors {
        code: "CF001",
        name: "suppress-errors",
        family: Config,
        scope: Anywhere,
        torch_versions: ">=2.0",
        fix_available: true,
        summary: "torch._dynamo.config.suppress_errors = True makes failed compiles a logged warning, not an error (user-code errors still raise)",
        hooks: { call: check_call, statement: check_statement },
    }
}

const CONFIG: &str = "torch._dynamo.config";

fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::Assign(assign) = stmt else { return };
    if !is_truthy(&assign.value) {
        return;
    }
    for target in &assign.targets {
        if checker.semantic().qualified(target).as_deref()
            == Some("torch._dynamo.config.suppress_errors")
        {
            let fix = crate::diagnostics::Fix {
                message: "Set `suppress_errors = False`".to_owned(),
                edits: vec![checker.edit(assign.value.range(), "False")],
            };
            report(checker, assign.range(), Some(fix));
        }
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, _qualified: Option<&str>) {
    let semantic = checker.semantic();
    let (Expr::Name(_) | Expr::Attribute(_)) = &*call.func else {
        return;
    };
    // setattr(torch._dynamo.config, "suppress_errors", True)
    if semantic.is_builtin(&call.func, "setattr") {
        if let [object, Expr::StringLiteral(name), value] = &*call.arguments.args
            && name.value.to_str() == "suppress_errors"
            && is_truthy(value)
            && semantic.qualified(object).as_deref() == Some(CONFIG)
        {
            report(checker, call.range(), None);
        }
        return;
    }
    // torch._dynamo.config.patch(suppress_errors=True) / .patch("suppress_errors", True)
    let Expr::Attribute(attribute) = &*call.func else {
        return;
    };
    if attribute.attr.id.as_str() != "patch"
        || semantic.qualified(&attribute.value).as_deref() != Some(CONFIG)
    {
        return;
    }
    let by_keyword = call
        .arguments
        .find_keyword("suppress_errors")
        .is_some_and(|k| is_truthy(&k.value));
    let by_position = matches!(&*call.arguments.args,
        [Expr::StringLiteral(name), value, ..] if name.value.to_str() == "suppress_errors" && is_truthy(value));
    if by_keyword || by_position {
        report(checker, call.range(), None);
    }
}

fn is_truthy(value: &Expr) -> bool {
    match value {
        Expr::BooleanLiteral(b) => b.value,
        Expr::NumberLiteral(n) => matches!(&n.value, ast::Number::Int(i) if i.as_u8() == Some(1)),
        _ => false,
    }
}

fn report(
    checker: &mut Checker<'_>,
    range: ruff_text_size::TextRange,
    fix: Option<crate::diagnostics::Fix>,
) {
    let mut finding = Finding::new(
        range,
        "`torch._dynamo.config.suppress_errors = True` turns failed compiles into eager fallbacks that only log a warning (`WON'T CONVERT` with the traceback): the failure never reaches an exit status, test or CI (user-code errors still raise)",
    );
    finding.fix = fix;
    checker.report(&SuppressErrors::META, finding);
}
