use crate::rules::declare_rule;
use crate::scan::analyze::Analyzer;
use crate::semantic::summary::Scope;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags `torch._dynamo.config.suppress_errors = True`, whether assigned, set with `setattr`,
    /// or patched with `torch._dynamo.config.patch(suppress_errors=True)`.
    ///
    /// ## Why is this bad?
    /// With `suppress_errors`, a compile that fails inside Dynamo or the backend silently falls
    /// back to eager: the model "works", the speedup never arrives, and nothing but a log line says
    /// so. It does not even do what people expect of it: errors raised by user code while tracing
    /// (such as the `_shape_as_tensor` `TypeError`) still propagate. You lose the signal and keep
    /// the crash.
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
        torch_versions: ">=2.0",
        fix_available: true,
        summary: "torch._dynamo.config.suppress_errors = True hides failed compiles (and not user-code errors)",
    }
}

const CONFIG: &str = "torch._dynamo.config";

pub fn check_assign(analyzer: &mut Analyzer<'_>, assign: &ast::StmtAssign) {
    if !is_truthy(&assign.value) {
        return;
    }
    for target in &assign.targets {
        if analyzer.qualified(target).as_deref() == Some("torch._dynamo.config.suppress_errors") {
            let fix = crate::diagnostics::Fix {
                message: "Set `suppress_errors = False`".to_owned(),
                edits: vec![analyzer.edit(assign.value.range(), "False")],
            };
            report(analyzer, assign.range(), Some(fix));
        }
    }
}

pub fn check_call(analyzer: &mut Analyzer<'_>, call: &ast::ExprCall) {
    let (Expr::Name(_) | Expr::Attribute(_)) = &*call.func else {
        return;
    };
    // setattr(torch._dynamo.config, "suppress_errors", True)
    if analyzer.is_builtin(&call.func, "setattr") {
        if let [object, Expr::StringLiteral(name), value] = &*call.arguments.args
            && name.value.to_str() == "suppress_errors"
            && is_truthy(value)
            && analyzer.qualified(object).as_deref() == Some(CONFIG)
        {
            report(analyzer, call.range(), None);
        }
        return;
    }
    // torch._dynamo.config.patch(suppress_errors=True) / .patch("suppress_errors", True)
    let Expr::Attribute(attribute) = &*call.func else {
        return;
    };
    if attribute.attr.id.as_str() != "patch"
        || analyzer.qualified(&attribute.value).as_deref() != Some(CONFIG)
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
        report(analyzer, call.range(), None);
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
    analyzer: &mut Analyzer<'_>,
    range: ruff_text_size::TextRange,
    fix: Option<crate::diagnostics::Fix>,
) {
    analyzer.report(
        &SuppressErrors::META,
        range,
        "`torch._dynamo.config.suppress_errors = True` turns failed compiles into silent eager fallbacks (user-code errors still raise)".to_owned(),
        fix,
        Scope::Anywhere,
        false,
    );
}
