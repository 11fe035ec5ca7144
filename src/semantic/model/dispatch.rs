//! Class decorators that replace `forward` with a dispatcher.
//!
//! ```python
//! def use_experts_implementation(experts_class=None, *, experts_interface=ALL_EXPERTS_FUNCTIONS):
//!     def wrapper(experts_class):
//!         original_forward = experts_class.forward
//!         def forward(self, *args, **kwargs):
//!             experts_forward = experts_interface.get_interface(self.config.impl, original_forward)
//!             return experts_forward(self, *args, **kwargs)
//!         experts_class.forward = forward
//!         return experts_class
//!     ...
//! ```
//!
//! A class decorated with such a function no longer runs its own `forward` when called: the
//! replacement picks an implementation from a registry and hands the original over only as a
//! fallback (transformers' MoE experts: the registry's `grouped_mm` by default, the class's eager
//! loop only when a user asks for `"eager"`). The decorator is recognised by its shape: it
//! assigns a nested function to `<param>.forward` (or `.__call__`), and that function never calls
//! the original directly. A wrapper that does call it (`return original_forward(self, *a)` after
//! a hook) keeps the class's `forward` reachable.

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

const REPLACED: &[&str] = &["forward", "__call__"];

/// Does this (module-level) function, or a function nested in it, replace `<x>.forward` with a
/// nested function that never calls the original `forward` itself?
pub(super) fn replaces_forward_with_dispatcher(def: &ast::StmtFunctionDef) -> bool {
    body_replaces_forward(&def.body, 0)
}

fn body_replaces_forward(body: &[Stmt], depth: u32) -> bool {
    if depth > 3 {
        return false;
    }
    let nested: Vec<&ast::StmtFunctionDef> = body
        .iter()
        .filter_map(|stmt| match stmt {
            Stmt::FunctionDef(def) => Some(def),
            _ => None,
        })
        .collect();
    if nested.is_empty() {
        return false;
    }
    // Locals that hold the original: `original_forward = experts_class.forward`.
    let originals: Vec<&str> = body
        .iter()
        .filter_map(|stmt| match stmt {
            Stmt::Assign(assign) => match (assign.targets.as_slice(), &*assign.value) {
                ([Expr::Name(name)], Expr::Attribute(attribute))
                    if REPLACED.contains(&attribute.attr.id.as_str()) =>
                {
                    Some(name.id.as_str())
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    let replaced = body.iter().any(|stmt| {
        let Stmt::Assign(assign) = stmt else {
            return false;
        };
        let ([Expr::Attribute(target)], Expr::Name(value)) =
            (assign.targets.as_slice(), &*assign.value)
        else {
            return false;
        };
        REPLACED.contains(&target.attr.id.as_str())
            && nested.iter().any(|def| {
                def.name.id.as_str() == value.id.as_str() && !calls_any(&def.body, &originals)
            })
    });
    replaced
        || nested
            .iter()
            .any(|def| body_replaces_forward(&def.body, depth + 1))
}

/// Does the body call one of `names` directly (`original_forward(self, x)`)?
fn calls_any(body: &[Stmt], names: &[&str]) -> bool {
    struct Finder<'n> {
        names: &'n [&'n str],
        found: bool,
    }
    impl<'a> Visitor<'a> for Finder<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Call(call) = expr
                && let Expr::Name(name) = &*call.func
                && self.names.contains(&name.id.as_str())
            {
                self.found = true;
            }
            if !self.found {
                visitor::walk_expr(self, expr);
            }
        }
    }
    let mut finder = Finder {
        names,
        found: false,
    };
    finder.visit_body(body);
    finder.found
}
