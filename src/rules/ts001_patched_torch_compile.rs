use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::model::SemanticModel;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags tests that replace `torch.compile` — `mock.patch("torch.compile", ...)`,
    /// `mock.patch.object(torch, "compile", ...)`, `monkeypatch.setattr(torch, "compile", ...)`,
    /// or `torch.compile = ...` — with an identity function or a mock.
    ///
    /// ## Why is this bad?
    /// Such a test asserts that `torch.compile` was *called*, never that the model *compiles*.
    /// It passes while Dynamo crashes on the model, so it proves nothing about the compile path.
    /// A spy that still compiles (`wraps=torch.compile`, or a replacement that calls
    /// `torch.compile(..., backend="eager")`) is not flagged.
    ///
    /// ## Example
    /// ```python
    /// with mock.patch("torch.compile", side_effect=lambda m, **_: m):
    ///     trainer.fit(model)
    /// ```
    ///
    /// ## Fix
    /// Compile for real with a cheap backend and assert on the result:
    /// ```python
    /// compiled = torch.compile(model, backend="eager", fullgraph=True)
    /// torch.testing.assert_close(compiled(x), model(x))
    /// ```
    /// or run `graphbreak check` on the model's factory.
    ///
    /// ## Torch versions
    /// All versions.
    pub struct PatchedTorchCompile {
        code: "TS001",
        name: "patched-torch-compile",
        family: Test,
        scope: Anywhere,
        torch_versions: "all",
        fix_available: false,
        summary: "test replaces torch.compile with a mock/identity: it can never see a compile failure",
        hooks: { call: check_call, statement: check_statement },
    }
}

const MESSAGE: &str = "`torch.compile` is replaced by a mock or identity here: the test can never see a compile failure; compile for real with `backend=\"eager\"`";

fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::Assign(assign) = stmt else { return };
    for target in &assign.targets {
        let semantic = checker.semantic();
        if semantic.qualified(target).as_deref() == Some("torch.compile")
            && is_fake_compile(semantic, Some(&assign.value))
        {
            report(checker, assign.range());
        }
    }
}

/// Is the replacement certainly not compiling? Only what we can see: no replacement (a MagicMock),
/// a mock object, or a lambda that never mentions `torch.compile`. A named function may be a
/// wrapper that calls the saved original (`orig = torch.compile; def patched(*a, **k): return
/// orig(*a, fullgraph=True, **k)`), so it is not flagged.
fn is_fake_compile(semantic: &SemanticModel<'_>, replacement: Option<&Expr>) -> bool {
    let Some(replacement) = replacement else {
        return true;
    };
    match replacement {
        Expr::Lambda(_) => !references_compile(semantic, replacement),
        Expr::Call(call) => {
            let mock = semantic.qualified(&call.func).is_some_and(|q| {
                let last = q.rsplit('.').next().unwrap_or(&q);
                (q.starts_with("unittest.mock.")
                    || q.starts_with("mock.")
                    || q.starts_with("pytest_mock."))
                    && matches!(
                        last,
                        "Mock" | "MagicMock" | "NonCallableMock" | "AsyncMock" | "create_autospec"
                    )
            });
            mock && !call
                .arguments
                .keywords
                .iter()
                .any(|k| references_compile(semantic, &k.value))
        }
        // `compile_mock = mock.MagicMock(...)` earlier in the test.
        Expr::Name(name) if semantic.local_value(name.id.as_str()).is_some() => {
            let value = semantic.local_value(name.id.as_str());
            !matches!(value, Some(Expr::Name(_))) && is_fake_compile(semantic, value)
        }
        other => semantic
            .qualified(other)
            .is_some_and(|q| q == "unittest.mock.DEFAULT" || q == "mock.DEFAULT"),
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let semantic = checker.semantic();
    let args = &call.arguments.args;
    let replacement: Option<Option<&Expr>> = match qualified {
        Some("unittest.mock.patch" | "mock.patch") => match args.first() {
            Some(Expr::StringLiteral(target))
                if target.value.to_str().ends_with("torch.compile") =>
            {
                Some(
                    args.get(1)
                        .or_else(|| keyword(call, "new"))
                        .or_else(|| keyword(call, "side_effect")),
                )
            }
            _ => None,
        },
        Some("unittest.mock.patch.object" | "mock.patch.object") => match &**args {
            [object, Expr::StringLiteral(attr), ..]
                if attr.value.to_str() == "compile"
                    && semantic.qualified(object).as_deref() == Some("torch") =>
            {
                Some(
                    args.get(2)
                        .or_else(|| keyword(call, "new"))
                        .or_else(|| keyword(call, "side_effect")),
                )
            }
            _ => None,
        },
        _ => {
            // monkeypatch.setattr(torch, "compile", f) / monkeypatch.setattr("torch.compile", f) / setattr(torch, "compile", f)
            let is_setattr = matches!(&*call.func, Expr::Attribute(a) if a.attr.id.as_str() == "setattr")
                || semantic.is_builtin(&call.func, "setattr");
            if !is_setattr {
                return;
            }
            match &**args {
                [object, Expr::StringLiteral(attr), value, ..]
                    if attr.value.to_str() == "compile"
                        && semantic.qualified(object).as_deref() == Some("torch") =>
                {
                    Some(Some(value))
                }
                [Expr::StringLiteral(target), value, ..]
                    if target.value.to_str() == "torch.compile" =>
                {
                    Some(Some(value))
                }
                _ => None,
            }
        }
    };
    let Some(replacement) = replacement else {
        return;
    };
    // `wraps=torch.compile` is a spy: it records calls and still compiles.
    if keyword(call, "wraps").is_some_and(|w| references_compile(semantic, w)) {
        return;
    }
    if is_fake_compile(semantic, replacement) {
        report(checker, call.range());
    }
}

fn keyword<'b>(call: &'b ast::ExprCall, name: &str) -> Option<&'b Expr> {
    call.arguments.find_keyword(name).map(|k| &k.value)
}

/// Does the replacement expression mention the real `torch.compile` (so it still compiles)?
fn references_compile(semantic: &SemanticModel<'_>, expr: &Expr) -> bool {
    struct Finder<'x, 'y> {
        semantic: &'x SemanticModel<'y>,
        found: bool,
        budget: u32,
    }
    impl<'a> ruff_python_ast::visitor::Visitor<'a> for Finder<'_, '_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.found || self.budget == 0 {
                return;
            }
            self.budget -= 1;
            if matches!(expr, Expr::Attribute(_) | Expr::Name(_))
                && self.semantic.qualified(expr).as_deref() == Some("torch.compile")
            {
                self.found = true;
                return;
            }
            ruff_python_ast::visitor::walk_expr(self, expr);
        }
    }
    let mut finder = Finder {
        semantic,
        found: false,
        budget: 256,
    };
    ruff_python_ast::visitor::Visitor::visit_expr(&mut finder, expr);
    finder.found
}

fn report(checker: &mut Checker<'_>, range: ruff_text_size::TextRange) {
    checker.report(&PatchedTorchCompile::META, Finding::new(range, MESSAGE));
}
