//! The rules' hooks by kind, in `rules::ALL` order, gathered once per process. The walk calls a
//! kind's hooks for every statement, call, attribute, subscript, comparison and truth test, and
//! most rules have one or two of the six kinds: looping over every rule tested ~36 empty slots
//! per node, a visible share of the walk.

use super::Checker;
use crate::rules;
use ruff_python_ast::{self as ast, Expr, Stmt};
use std::sync::LazyLock;

type CallHook = fn(&mut Checker<'_>, &ast::ExprCall, Option<&str>);
type TruthTestHook = fn(&mut Checker<'_>, &Expr);
type AttributeHook = fn(&mut Checker<'_>, &ast::ExprAttribute);
type CompareHook = fn(&mut Checker<'_>, &ast::ExprCompare);
type SubscriptHook = fn(&mut Checker<'_>, &ast::ExprSubscript);
type StatementHook = fn(&mut Checker<'_>, &Stmt);

pub(super) struct HooksByKind {
    pub(super) call: Box<[CallHook]>,
    pub(super) truth_test: Box<[TruthTestHook]>,
    pub(super) attribute: Box<[AttributeHook]>,
    pub(super) compare: Box<[CompareHook]>,
    pub(super) subscript: Box<[SubscriptHook]>,
    pub(super) statement: Box<[StatementHook]>,
}

pub(super) static HOOKS: LazyLock<HooksByKind> = LazyLock::new(|| HooksByKind {
    call: rules::ALL
        .iter()
        .filter_map(|rule| rule.hooks.call)
        .collect(),
    truth_test: rules::ALL
        .iter()
        .filter_map(|rule| rule.hooks.truth_test)
        .collect(),
    attribute: rules::ALL
        .iter()
        .filter_map(|rule| rule.hooks.attribute)
        .collect(),
    compare: rules::ALL
        .iter()
        .filter_map(|rule| rule.hooks.compare)
        .collect(),
    subscript: rules::ALL
        .iter()
        .filter_map(|rule| rule.hooks.subscript)
        .collect(),
    statement: rules::ALL
        .iter()
        .filter_map(|rule| rule.hooks.statement)
        .collect(),
});
