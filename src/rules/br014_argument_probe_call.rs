use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::own_scope::walk_own_scope;
use crate::semantic::summary::Hazard;
use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::{self as ast, ExceptHandler, Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags a call inside `try:` whose `except TypeError:` handler calls the same callable again
    /// (`try: x = layer(x, lengths=lens)` / `except TypeError: x = layer(x)`), in code Dynamo
    /// traces: the argument-probing idiom, which tries a signature and falls back when the
    /// callee does not accept it.
    ///
    /// ## Why is this bad?
    /// When the arguments do not bind to the callee's parameters, Dynamo does not raise the
    /// `TypeError` into the handler: it stops tracing at the call and breaks the graph ("failed
    /// to bind arguments when attempting to inline", GB7312 on torch 2.11), and the call and its
    /// fallback run eagerly. Every call site that takes the fallback costs a graph break, on
    /// every step. Measured with `backend="eager"` on torch 2.2, 2.5, 2.8 and 2.11: a loop over
    /// two modules, one without the keyword, compiles to two graphs; when every callee accepts
    /// the arguments it is one graph, so only code that really takes the fallback pays.
    ///
    /// A torch function probed this way (`torch.is_autocast_enabled(device)` with a fallback for
    /// older torch) is not flagged: Dynamo does not inline it, and on the torch versions that
    /// accept the argument it binds.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x, lengths):
    ///     for layer in self.layers:
    ///         try:
    ///             x = layer(x, lengths=lengths)
    ///         except TypeError:
    ///             x = layer(x)
    ///     return x
    /// ```
    ///
    /// ## Fix
    /// Decide the call form when the model is built, not per call: record which layers take the
    /// argument in `__init__` (`inspect.signature` there) and branch on that constant, or give
    /// every layer the same signature (`def forward(self, x, lengths=None)`).
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (tests/python/test_peer_suite_proofs.py).
    pub struct ArgumentProbeCall {
        code: "BR014",
        name: "argument-probe-call",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "try a call and retry it in `except TypeError:`: when the arguments do not bind, Dynamo breaks the graph instead of raising",
        hooks: { statement: check_statement },
    }
}

fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::Try(try_stmt) = stmt else {
        return;
    };
    if !checker.semantic().in_function() {
        return;
    }
    // The callables the `except TypeError` handlers call again.
    let mut retried: Vec<ComparableExpr<'_>> = Vec::new();
    for handler in &try_stmt.handlers {
        let ExceptHandler::ExceptHandler(handler) = handler;
        if !handler
            .type_
            .as_deref()
            .is_some_and(|caught| catches_type_error(checker, caught))
        {
            continue;
        }
        retried.extend(
            own_scope_calls(&handler.body)
                .iter()
                .map(|call| ComparableExpr::from(&*call.func)),
        );
    }
    if retried.is_empty() {
        return;
    }
    let tried = own_scope_calls(&try_stmt.body);
    // One finding per try: the first probed call is the cause. A torch function is not inlined:
    // probing its signature across torch versions (`torch.is_autocast_enabled(device)`) binds
    // or fails in C, not in Dynamo's inliner, and binds on the versions that accept it.
    let semantic = checker.semantic();
    let Some(probe) = tried.into_iter().find(|call| {
        retried.contains(&ComparableExpr::from(&*call.func))
            && !semantic
                .qualified(&call.func)
                .is_some_and(|name| name == "torch" || name.starts_with("torch."))
    }) else {
        return;
    };
    checker.report(
        &ArgumentProbeCall::META,
        Finding::new(
            probe.range(),
            format!(
                "call retried in `except TypeError:`: where its arguments do not bind, Dynamo does not raise TypeError into the handler, it breaks the graph ({}); decide the call form in `__init__` or give every callee the same signature",
                super::graph_break_label("failed to bind arguments when attempting to inline")
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}

/// `except TypeError:` or `except (TypeError, ValueError):`, with `TypeError` the builtin.
fn catches_type_error(checker: &Checker<'_>, caught: &Expr) -> bool {
    match caught {
        Expr::Tuple(tuple) => tuple
            .elts
            .iter()
            .any(|elt| catches_type_error(checker, elt)),
        expr => checker.semantic().is_builtin(expr, "TypeError"),
    }
}

/// The calls of a block, in source order, not looking into nested functions or classes (their
/// bodies run elsewhere).
fn own_scope_calls(body: &[Stmt]) -> Vec<&ast::ExprCall> {
    let mut calls = Vec::new();
    walk_own_scope(body, |expr| {
        if let Expr::Call(call) = expr {
            calls.push(call);
        }
        true
    });
    calls
}
