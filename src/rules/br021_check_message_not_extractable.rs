use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags `torch._check(cond, message)` in code Dynamo traces when Dynamo cannot keep the
    /// message: a lambda (or nested function) that reads a variable of the enclosing function
    /// (`lambda: f"{x.shape[0]} > 3"`), or a message that is not a function defined in the
    /// compiled region (a string, a module-level function).
    ///
    /// ## Why is this bad?
    /// From torch 2.11 Dynamo stores the message function in the graph, which it can only do
    /// for a function defined in the traced code with no closure variables. Otherwise it stops
    /// with GB0288 "Can't extract message from torch._check()" — a graph break at the check, or
    /// an error under `fullgraph=True` — whatever the condition (it is refused before the
    /// condition is looked at). Measured on torch 2.11 (backend="eager"). Before 2.11 any message
    /// argument breaks when the condition is symbolic (a dynamic shape, an unbacked value), and
    /// a constant condition is folded; this rule claims 2.11 only.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     torch._check(x.shape[0] > 3, lambda: f"{x.shape[0]} is not greater than 3")
    /// ```
    ///
    /// ## Fix
    /// Use a message lambda that reads no local variable (`lambda: "batch must be > 3"`), or
    /// drop the message.
    ///
    /// ## Torch versions
    /// Measured on torch 2.11 (tests/python/test_peer_suite_proofs.py); the check does not exist
    /// in this form before 2.11.
    pub struct CheckMessageNotExtractable {
        code: "BR021",
        name: "check-message-not-extractable",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.11",
        fix_available: false,
        summary: "torch._check message Dynamo cannot keep (a lambda reading a local, a string): GB0288 graph break on torch 2.11",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    if qualified != Some("torch._check") || !checker.semantic().in_function() {
        return;
    }
    let message = call
        .arguments
        .args
        .get(1)
        .or_else(|| call.arguments.find_keyword("message").map(|k| &k.value));
    let Some(message) = message else {
        return;
    };
    let why = match message {
        Expr::Lambda(lambda) => {
            let params: Vec<&str> = lambda
                .parameters
                .iter()
                .flat_map(|p| p.iter_non_variadic_params())
                .map(|p| p.parameter.name.as_str())
                .collect();
            match closure_name(&lambda.body, &params, checker) {
                Some(name) => format!(
                    "the message lambda reads `{name}`, a variable of the enclosing function"
                ),
                None => return,
            }
        }
        Expr::StringLiteral(_) | Expr::FString(_) => {
            "the message is a string, not a function".to_owned()
        }
        _ => return,
    };
    let label = super::graph_break_label("Can't extract message from torch._check()");
    checker.report(
        &CheckMessageNotExtractable::META,
        Finding::new(
            call.range(),
            format!("`torch._check` message Dynamo cannot keep: {why} ({label})"),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}

/// The first name the lambda body reads that is a local of an enclosing function (a closure
/// variable of the lambda), other than the lambda's own parameters.
fn closure_name<'e>(body: &'e Expr, params: &[&str], checker: &Checker<'_>) -> Option<&'e str> {
    let mut found = None;
    let mut visit = |expr: &'e Expr| {
        if found.is_none()
            && let Expr::Name(name) = expr
            && name.ctx.is_load()
            && !params.contains(&name.id.as_str())
            && checker.semantic().is_enclosing_local(name.id.as_str())
        {
            found = Some(name.id.as_str());
        }
    };
    walk_names(body, &mut visit);
    found
}

fn walk_names<'e>(expr: &'e Expr, visit: &mut impl FnMut(&'e Expr)) {
    use ruff_python_ast::visitor::source_order::{SourceOrderVisitor, walk_expr};
    struct Names<'v, F>(&'v mut F);
    impl<'e, F: FnMut(&'e Expr)> SourceOrderVisitor<'e> for Names<'_, F> {
        fn visit_expr(&mut self, expr: &'e Expr) {
            (self.0)(expr);
            walk_expr(self, expr);
        }
    }
    Names(visit).visit_expr(expr);
}
