//! Torch version gates on imports.
//!
//! ```python
//! # utils/torch_utils.py
//! TORCH_2_8 = check_version(TORCH_VERSION, "2.8.0")
//! # engine/exporter.py
//! def export_coreai(self):
//!     assert TORCH_2_8, "Core AI export requires torch>=2.8.0"
//!     from ultralytics.utils.export.coreai import torch2coreai
//! ```
//!
//! A function that the project calls only after such an assertion never runs on an older torch,
//! whatever the project's declared floor: a finding in it that holds only below a version (an
//! API newer than the floor) does not hold. The file records its module-level version flags and
//! the project calls made after a top-level assertion; linking resolves the flags and requires
//! every call of the function to be so gated.

use super::{Binding, SemanticModel};
use crate::config::TorchVersion;
use crate::semantic::Sym;
use crate::semantic::summary::{FuncIdx, GatedCall};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

impl<'a> SemanticModel<'a> {
    /// Module level `NAME = check_version(<torch version>, "2.8.0")` or
    /// `NAME = <torch version> >= <"2.8" or version.parse("2.8")>`: NAME is True exactly on torch
    /// at or above that version.
    pub(crate) fn note_version_flag(&mut self, target: &str, value: &Expr) {
        let version = match value {
            Expr::Call(call)
                if matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "check_version")
                    || matches!(&*call.func, Expr::Attribute(a) if a.attr.id.as_str() == "check_version") =>
            {
                match call.arguments.args.as_ref() {
                    [current, required, ..] if mentions_torch_version(current) => {
                        literal_version(required)
                    }
                    _ => None,
                }
            }
            Expr::Compare(compare)
                if compare.ops.len() == 1
                    && matches!(compare.ops[0], ast::CmpOp::GtE)
                    && mentions_torch_version(&compare.left) =>
            {
                compare.comparators.first().and_then(literal_version)
            }
            _ => None,
        };
        if let Some(version) = version {
            self.summary
                .version_flags
                .insert(target.to_owned(), version);
        }
    }

    /// The version flags a function body asserts at its top level (`assert TORCH_2_8, msg` or
    /// `if not TORCH_2_8: raise ...`), with where the assertion ends: they hold for everything
    /// after it in the function.
    pub(crate) fn top_level_version_asserts(&self, body: &[Stmt]) -> Vec<(u32, Sym)> {
        let mut out = Vec::new();
        for stmt in body {
            let flag = match stmt {
                Stmt::Assert(assert) => Some(&*assert.test),
                Stmt::If(stmt_if)
                    if stmt_if.elif_else_clauses.is_empty()
                        && matches!(stmt_if.body.last(), Some(Stmt::Raise(_))) =>
                {
                    match &*stmt_if.test {
                        Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => {
                            Some(&*unary.operand)
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            let sym = match flag {
                // A flag of this module (`TORCH_2_8 = check_version(...)` above) is no import.
                Some(Expr::Name(name))
                    if self.summary.version_flags.contains_key(name.id.as_str())
                        && self
                            .lookup(name.id.as_str())
                            .is_none_or(|b| !matches!(b, Binding::Import(_))) =>
                {
                    Some(Sym::Local(name.id.to_string()))
                }
                Some(flag @ (Expr::Name(_) | Expr::Attribute(_))) => match self.resolve(flag) {
                    Some(sym @ (Sym::Dotted(_) | Sym::Local(_))) => Some(sym),
                    _ => None,
                },
                _ => None,
            };
            if let Some(sym) = sym {
                out.push((u32::from(stmt.end()), sym));
            }
        }
        out
    }

    /// The version flags asserted before `at` at the top of the enclosing functions.
    pub fn version_flags_asserted_before(&self, at: u32) -> Vec<Sym> {
        self.version_asserts
            .iter()
            .filter(|(end, _)| *end <= at)
            .map(|(_, sym)| sym.clone())
            .collect()
    }

    /// Records a project call made after version assertions of the enclosing functions.
    pub(crate) fn note_gated_call(&mut self, func: FuncIdx, call: u32, at: u32) {
        if self.version_asserts.is_empty() {
            return;
        }
        let flags = self.version_flags_asserted_before(at);
        if !flags.is_empty() {
            self.summary
                .gated_calls
                .push(GatedCall { func, call, flags });
        }
    }
}

/// `torch.__version__`, `TORCH_VERSION`, `version.parse(torch.__version__)`: an expression that
/// reads the installed torch's version.
fn mentions_torch_version(expr: &Expr) -> bool {
    match expr {
        Expr::Name(name) => {
            let id = name.id.as_str().to_ascii_uppercase();
            id.contains("TORCH") && id.contains("VERSION")
        }
        Expr::Attribute(attribute) => {
            attribute.attr.id.as_str() == "__version__"
                && matches!(&*attribute.value, Expr::Name(n) if n.id.as_str() == "torch")
        }
        Expr::Call(call) => call
            .arguments
            .args
            .first()
            .is_some_and(mentions_torch_version),
        _ => false,
    }
}

/// `"2.8.0"`, `">=2.8.0"`, `version.parse("2.8")`.
fn literal_version(expr: &Expr) -> Option<TorchVersion> {
    match expr {
        Expr::StringLiteral(string) => {
            let text = string.value.to_str().trim();
            TorchVersion::parse(text.strip_prefix(">=").unwrap_or(text))
        }
        Expr::Call(call) => call.arguments.args.first().and_then(literal_version),
        _ => None,
    }
}
