//! Logging and warning calls, and the branches whose warning says the caller misused the API.
//!
//! `if txt_ids.ndim == 3: logger.warning("Passing 3d `txt_ids` is deprecated ...")` and
//! `if len(unused) > 0: logger.warning(f"{unused} are not expected ... and will be ignored.")`
//! run only when a caller passes a deprecated or ignored input; the library's own callers do
//! not, so Dynamo does not trace them in the code users compile. Such a branch is a misuse
//! branch, like a `raise` branch a failure path. What counts is data (`rules/data/warnings.toml`):
//! a call to a deprecation helper, or a logger / `warnings.warn` call whose literal text says the
//! input is deprecated / ignored / has no effect. A warning about a normal situation (an unknown
//! config value falling back to a default) keeps its branch traced, and so does a `FutureWarning`
//! whose text says nothing of the kind (a changed behaviour on the normal path).

use super::SemanticModel;
use crate::semantic::Sym;
use crate::semantic::data::TORCH;
use ruff_python_ast::{self as ast, Expr, InterpolatedStringElement, Stmt};

impl<'a> SemanticModel<'a> {
    /// The method name of a logger call (`logger.warning(...)`, `self.logger.info(...)`,
    /// `LOG.warning_once(...)`): a receiver named like a logger, a method that emits a record.
    pub fn logger_method<'c>(&self, call: &'c ast::ExprCall) -> Option<&'c str> {
        let Expr::Attribute(attribute) = &*call.func else {
            return None;
        };
        let method = attribute.attr.id.as_str();
        (TORCH.logger_methods.contains(method) && is_logger_receiver(&attribute.value))
            .then_some(method)
    }

    /// Does this block (an `if` / `elif` / `else` body) announce, in one of its own statements,
    /// that the caller used a deprecated or ignored input?
    pub(crate) fn warns_of_misuse(&self, body: &[Stmt]) -> bool {
        body.iter().any(|stmt| match stmt {
            Stmt::Expr(expr) => match &*expr.value {
                Expr::Call(call) => self.is_misuse_warning(call),
                _ => false,
            },
            _ => false,
        })
    }

    fn is_misuse_warning(&self, call: &ast::ExprCall) -> bool {
        let is_warning = self.logger_method(call).is_some()
            || self.qualified(&call.func).as_deref() == Some("warnings.warn");
        if !is_warning {
            // A project deprecation helper (`deprecate("scale", "1.0.0", message)`), resolved
            // to an import or a definition.
            return match self.resolve(&call.func) {
                Some(Sym::Dotted(name) | Sym::Local(name)) => TORCH
                    .deprecation_helpers
                    .contains(name.rsplit('.').next().unwrap_or(&name)),
                _ => false,
            };
        }
        let mut text = String::new();
        for arg in &call.arguments.args {
            literal_text(arg, &mut text);
            text.push(' ');
        }
        for keyword in &call.arguments.keywords {
            if keyword
                .arg
                .as_ref()
                .is_some_and(|arg| matches!(arg.id.as_str(), "msg" | "message"))
            {
                literal_text(&keyword.value, &mut text);
                text.push(' ');
            }
        }
        // Implicit concatenation often splits a sentence at a space, or glues two sentences.
        let text = text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        TORCH
            .misuse_phrases
            .iter()
            .any(|phrase| text.contains(phrase.as_str()))
    }
}

/// `logger`, `self.logger`, `cls._logger`: receivers that are loggers by convention.
fn is_logger_receiver(receiver: &Expr) -> bool {
    match receiver {
        Expr::Name(name) => TORCH.logger_names.contains(name.id.as_str()),
        Expr::Attribute(attribute) => {
            matches!(&*attribute.value, Expr::Name(owner) if owner.id.as_str() == "self" || owner.id.as_str() == "cls")
                && TORCH.logger_names.contains(attribute.attr.id.as_str())
        }
        _ => false,
    }
}

/// The literal text of a message: string literals, the literal parts of f-strings (implicit
/// concatenation included), both sides of `+`, the template of `%` and of `"...".format(...)`.
fn literal_text(expr: &Expr, out: &mut String) {
    match expr {
        Expr::StringLiteral(string) => out.push_str(string.value.to_str()),
        Expr::FString(fstring) => {
            for part in &fstring.value {
                match part {
                    ast::FStringPart::Literal(literal) => out.push_str(&literal.value),
                    ast::FStringPart::FString(fstring) => {
                        for element in &fstring.elements {
                            if let InterpolatedStringElement::Literal(literal) = element {
                                out.push_str(&literal.value);
                            }
                        }
                    }
                }
            }
        }
        Expr::BinOp(binop) if matches!(binop.op, ast::Operator::Add) => {
            literal_text(&binop.left, out);
            literal_text(&binop.right, out);
        }
        Expr::BinOp(binop) if matches!(binop.op, ast::Operator::Mod) => {
            literal_text(&binop.left, out);
        }
        Expr::Call(call) => {
            if let Expr::Attribute(attribute) = &*call.func
                && attribute.attr.id.as_str() == "format"
            {
                literal_text(&attribute.value, out);
            }
        }
        _ => {}
    }
}
