//! Writes a function makes to state that outlives its frame (`self.calls += 1`, `cache.append(x)`
//! on a list it did not create). Dynamo traces them in ordinary code, but not inside the body of a
//! higher-order op such as `torch.utils.checkpoint.checkpoint` (GB0067 "HOP: Unsafe side effect").

use super::SemanticModel;
use crate::semantic::summary::OutsideWrite;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

/// Methods that mutate a Python container in place (`add` is left out: `tensor.add` is pure).
const MUTATORS: &[&str] = &[
    "append",
    "extend",
    "insert",
    "update",
    "pop",
    "remove",
    "clear",
    "setdefault",
    "appendleft",
    "popitem",
];

impl<'a> SemanticModel<'a> {
    /// Attribute stores in an assignment: `self.x = ...`, `self.n += 1`, `obj.attr = ...` on an
    /// object this function did not create.
    pub(crate) fn note_outside_writes(&mut self, stmt: &Stmt) {
        let targets: Vec<&Expr> = match stmt {
            Stmt::Assign(assign) => assign.targets.iter().collect(),
            Stmt::AugAssign(assign) => vec![&*assign.target],
            Stmt::AnnAssign(assign) if assign.value.is_some() => vec![&*assign.target],
            _ => return,
        };
        for target in targets {
            self.note_self_write(target);
            if let Expr::Attribute(attribute) = target
                && self.is_outside_object(&attribute.value)
            {
                self.push_outside_write(
                    || format!("writes attribute `.{}`", attribute.attr.id),
                    target,
                );
            }
        }
    }

    /// `outside.append(x)` and other in-place container mutations of outside objects.
    pub(crate) fn note_outside_mutation(&mut self, call: &ast::ExprCall) {
        if let Expr::Attribute(attribute) = &*call.func
            && MUTATORS.contains(&attribute.attr.id.as_str())
            && self.qualified(&call.func).is_none()
            && self.is_outside_object(&attribute.value)
        {
            self.push_outside_write(
                || format!("calls `.{}()` on an outside object", attribute.attr.id),
                call.func.as_ref(),
            );
        }
    }

    /// Keeps the first write of each function (the one a finding names).
    fn push_outside_write(&mut self, what: impl FnOnce() -> String, at: &Expr) {
        let Some(func) = self.current_function() else {
            return;
        };
        if !self.summary.functions[func as usize]
            .outside_writes
            .is_empty()
        {
            return;
        }
        let location = self.location(at.start().into());
        self.summary.functions[func as usize]
            .outside_writes
            .push(OutsideWrite {
                what: what(),
                location,
            });
    }

    /// Is the object rooted in a name this function did not assign (`self`, a parameter, a global)?
    fn is_outside_object(&self, expr: &Expr) -> bool {
        let mut current = expr;
        loop {
            match current {
                Expr::Attribute(attribute) => current = &attribute.value,
                Expr::Subscript(subscript) => current = &subscript.value,
                Expr::Name(name) => {
                    return self
                        .function_frame()
                        .is_some_and(|frame| !frame.values.contains_key(name.id.as_str()));
                }
                _ => return false,
            }
        }
    }
}
