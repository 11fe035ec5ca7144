//! The expressions a block runs in its own scope: every expression of its statements, in source
//! order, without looking into nested functions, classes or lambdas (each is a code object of its
//! own, run only when called). Rules and the model ask this of a function body ("does it yield",
//! "which calls does it make", "does it call `ctx.graph_break()`").

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};

/// Calls `each` on every expression `body` evaluates in its own scope, parents before children;
/// `each` returns `false` to stop the walk.
pub fn walk_own_scope<'e>(body: &'e [Stmt], each: impl FnMut(&'e Expr) -> bool) {
    let mut walker = OwnScope {
        each,
        stopped: false,
    };
    walker.visit_body(body);
}

/// Whether any expression `body` evaluates in its own scope satisfies `test`.
pub fn any_in_own_scope<'e>(body: &'e [Stmt], mut test: impl FnMut(&'e Expr) -> bool) -> bool {
    let mut found = false;
    walk_own_scope(body, |expr| {
        found = test(expr);
        !found
    });
    found
}

struct OwnScope<F> {
    each: F,
    stopped: bool,
}

impl<'e, F: FnMut(&'e Expr) -> bool> Visitor<'e> for OwnScope<F> {
    fn visit_stmt(&mut self, stmt: &'e Stmt) {
        if self.stopped || matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            return;
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'e Expr) {
        if self.stopped || matches!(expr, Expr::Lambda(_)) {
            return;
        }
        if !(self.each)(expr) {
            self.stopped = true;
            return;
        }
        visitor::walk_expr(self, expr);
    }
}
