//! The walk through control flow: branch tests, `if`/`elif`/`else`, `try`, loop `else` and
//! `match`. Each keeps the semantic model's path facts (guards, joins of locals after the
//! branches) in step with the code Dynamo would trace.

use super::{Checker, body_range, hooks};
use crate::semantic::model::{SemanticModel, path_ends};
use crate::semantic::summary::{Branch, PathStep};
use ruff_python_ast::visitor::Visitor;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::TextRange;

impl<'a> Checker<'a> {
    /// Walks the operands of a branch test the way Python evaluates them (`and`/`or` short-circuit,
    /// `not`), guarding later operands by earlier ones, and hands each leaf to the rules.
    pub(super) fn visit_truth_test(&mut self, test: &'a Expr) {
        self.visit_truth_test_depth(test, 0);
    }

    fn visit_truth_test_depth(&mut self, test: &'a Expr, depth: u32) {
        if depth > 48 {
            return;
        }
        match test {
            Expr::BoolOp(boolop) => {
                let branch = Branch::taken_when(boolop.op == ast::BoolOp::And);
                let mark = self.semantic.mark();
                for value in &boolop.values {
                    self.visit_truth_test_depth(value, depth + 1);
                    self.semantic.enter_guard(value, branch);
                }
                self.semantic.restore(mark);
            }
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => {
                self.visit_truth_test_depth(&unary.operand, depth + 1)
            }
            _ => {
                for hook in hooks::HOOKS.truth_test.iter() {
                    hook(self, test);
                }
            }
        }
    }

    pub(super) fn visit_if(&mut self, stmt_if: &'a ast::StmtIf) {
        let mark = self.semantic.mark();
        self.visit_truth_test(&stmt_if.test);
        self.visit_expr(&stmt_if.test);
        // Each branch starts from the facts before the `if`; after it, a local keeps a fact only
        // when every branch that gets there agrees.
        let mut join = self.semantic.begin_join();
        let guard = self.semantic.enter_guard(&stmt_if.test, Branch::WhenTrue);
        let narrowing = self.semantic.enter_narrowing(&stmt_if.test);
        let tensors = self.semantic.enter_tensor_narrowing(&stmt_if.test);
        self.visit_branch(&stmt_if.body);
        self.semantic.leave_tensor_narrowing(tensors);
        self.semantic.leave_narrowing(narrowing);
        self.semantic.end_path(&mut join, !path_ends(&stmt_if.body));
        if let Some(g) = guard {
            self.semantic.pop_step();
            self.semantic
                .push_step(PathStep::Guard(g, Branch::WhenFalse));
        }
        for clause in &stmt_if.elif_else_clauses {
            self.semantic.start_path(&mut join);
            match &clause.test {
                Some(test) => {
                    self.visit_truth_test(test);
                    self.visit_expr(test);
                    let clause_guard = self.semantic.enter_guard(test, Branch::WhenTrue);
                    let narrowing = self.semantic.enter_narrowing(test);
                    let tensors = self.semantic.enter_tensor_narrowing(test);
                    self.visit_branch(&clause.body);
                    self.semantic.leave_tensor_narrowing(tensors);
                    self.semantic.leave_narrowing(narrowing);
                    if let Some(g) = clause_guard {
                        self.semantic.pop_step();
                        self.semantic
                            .push_step(PathStep::Guard(g, Branch::WhenFalse));
                    }
                }
                None => self.visit_branch(&clause.body),
            }
            self.semantic.end_path(&mut join, !path_ends(&clause.body));
        }
        let has_else = stmt_if
            .elif_else_clauses
            .last()
            .is_some_and(|clause| clause.test.is_none());
        self.semantic.finish_join(join, !has_else);
        self.semantic.narrow_after_exit(stmt_if);
        self.semantic.restore(mark);
        self.semantic.set_last_if_guard(guard, stmt_if);
    }

    /// An `if` / `elif` / `else` body. One whose warning says the caller passed a deprecated or
    /// ignored input is a misuse branch: the library's own callers do not take it.
    pub(super) fn visit_branch(&mut self, body: &'a [Stmt]) {
        let mark = self.semantic.mark();
        if self.semantic.warns_of_misuse(body) {
            self.semantic.push_step(PathStep::MisuseOnly);
        }
        self.visit_conditional(body_range(body), |checker| checker.visit_body(body));
        self.semantic.restore(mark);
    }

    /// Visits code that runs only on some paths (a branch), so that a frame skip inside it does
    /// not hide the code after it (`scan/merge.rs`).
    pub(super) fn visit_conditional(
        &mut self,
        range: Option<TextRange>,
        visit: impl FnOnce(&mut Self),
    ) {
        let Some(range) = range else {
            return visit(self);
        };
        self.conditional_blocks.push(range);
        visit(self);
        self.conditional_blocks.pop();
    }

    pub(super) fn visit_try(&mut self, stmt_try: &'a ast::StmtTry) {
        let handlers = SemanticModel::try_handlers(stmt_try);
        let mut join = self.semantic.begin_try_join();
        self.semantic.enter_try_body(handlers);
        self.visit_body(&stmt_try.body);
        self.semantic.leave_try_body(handlers);
        // The body's path resumes in `else`; a handler starts wherever the body raised, so it
        // keeps no fact for a name the body binds.
        let body_end = self.semantic.take_facts();
        for handler in &stmt_try.handlers {
            let ast::ExceptHandler::ExceptHandler(handler) = handler;
            self.semantic.start_path(&mut join);
            self.semantic.forget_bound_in(&stmt_try.body);
            if let Some(kind) = &handler.type_ {
                self.visit_expr(kind);
            }
            // Dynamo traces the path that does not raise: a handler runs only after an exception.
            self.semantic.push_step(PathStep::AfterException);
            self.visit_body(&handler.body);
            self.semantic.pop_step();
            self.semantic.end_path(&mut join, !path_ends(&handler.body));
        }
        self.semantic.put_facts(body_end);
        self.visit_body(&stmt_try.orelse);
        let body_reaches = if stmt_try.orelse.is_empty() {
            !path_ends(&stmt_try.body)
        } else {
            !path_ends(&stmt_try.orelse)
        };
        self.semantic.end_path(&mut join, body_reaches);
        self.semantic.finish_join(join, false);
        if !stmt_try.finalbody.is_empty() {
            // `finally` also runs after a raise anywhere above.
            self.semantic.forget_bound_in(&stmt_try.body);
            self.semantic.forget_bound_in(&stmt_try.orelse);
            for handler in &stmt_try.handlers {
                let ast::ExceptHandler::ExceptHandler(handler) = handler;
                self.semantic.forget_bound_in(&handler.body);
            }
        }
        self.visit_body(&stmt_try.finalbody);
    }

    /// A loop's `else`: a `break` skips it, so with one in the body what it binds keeps no fact.
    pub(super) fn visit_loop_else(&mut self, body: &'a [Stmt], orelse: &'a [Stmt]) {
        if orelse.is_empty() {
            return;
        }
        self.visit_body(orelse);
        self.semantic.after_loop_else(body, orelse);
    }

    pub(super) fn visit_match(&mut self, stmt_match: &'a ast::StmtMatch) {
        self.visit_expr(&stmt_match.subject);
        let mut join = self.semantic.begin_join();
        for (index, case) in stmt_match.cases.iter().enumerate() {
            if index > 0 {
                self.semantic.start_path(&mut join);
            }
            self.semantic.forget_pattern_names(&case.pattern);
            self.visit_match_case(case);
            self.semantic.end_path(&mut join, !path_ends(&case.body));
        }
        // Without a catch-all last case (`case _:` / `case name:`), no case may match.
        let exhaustive = stmt_match.cases.last().is_some_and(|case| {
            case.guard.is_none()
                && matches!(&case.pattern, ast::Pattern::MatchAs(p) if p.pattern.is_none())
        });
        self.semantic.finish_join(join, !exhaustive);
    }
}
