//! A small symbolic evaluator for guard predicates: what an expression is worth under
//! `torch.compile` on every torch at or above the project's floor.
//!
//! Predicate helpers come in endless shapes (`getattr(torch.compiler, "is_compiling", None) or
//! getattr(torch._dynamo, "is_compiling", None)`, then `bool(_f()) if _f is not None else False`);
//! instead of recognizing shapes, their parts are evaluated: `getattr` of a known attribute is the
//! function when the torch data table says it exists at every version that can compile (the floor,
//! and never below torch.compile's own release), else "that function or the default"; `or` / `and`
//! / ternary / `not` / `bool()` / `callable()` / `is None` / calls combine the values; names read
//! module globals and locals. A value that depends on something not understood is `Unknown`.

use super::facts::Follow;
use super::{Binding, MAX_EXPR_DEPTH, SemanticModel};
use crate::semantic::Sym;
use crate::semantic::cond::{Atom, Cond, atom_for_qualified};
use crate::semantic::data::TORCH;
use ruff_python_ast::{self as ast, Expr};

/// What an expression evaluates to, as far as guards care.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    /// A callable whose call returns this formula (a guard predicate, or a project function that
    /// may be one: `Atom::Call`, decided when linking).
    Callable(Cond),
    /// `None`.
    None,
    /// A boolean: its value under compile.
    Bool(Cond),
    /// One of two values (which one depends on the torch version, or on a test not understood).
    Either(Box<Value>, Box<Value>),
    Unknown,
}

/// `a` or `b`, known when both agree.
fn choice(a: Cond, b: Cond) -> Cond {
    if a == b {
        a
    } else {
        Cond::Choice(Box::new(a), Box::new(b))
    }
}

impl Value {
    fn either(a: Value, b: Value) -> Value {
        match (a, b) {
            (a, b) if a == b => a,
            (Value::Unknown, _) | (_, Value::Unknown) => Value::Unknown,
            // Two predicates: whichever it is, calling it is one of their values.
            (Value::Callable(a), Value::Callable(b)) => Value::Callable(choice(a, b)),
            (Value::Bool(a), Value::Bool(b)) => Value::Bool(choice(a, b)),
            (a, b) => Value::Either(Box::new(a), Box::new(b)),
        }
    }

    /// Its truth when a branch reads it.
    pub(crate) fn truth(&self) -> Cond {
        match self {
            Value::Callable(_) => Cond::Const(true),
            Value::None => Cond::Const(false),
            Value::Bool(cond) => cond.clone(),
            Value::Either(a, b) => choice(a.truth(), b.truth()),
            Value::Unknown => Cond::Unknown,
        }
    }

    fn is_none(&self) -> Cond {
        match self {
            Value::Callable(_) | Value::Bool(_) => Cond::Const(false),
            Value::None => Cond::Const(true),
            Value::Either(a, b) => choice(a.is_none(), b.is_none()),
            Value::Unknown => Cond::Unknown,
        }
    }

    fn is_callable(&self) -> Cond {
        match self {
            Value::Callable(_) => Cond::Const(true),
            Value::None | Value::Bool(_) => Cond::Const(false),
            Value::Either(a, b) => choice(a.is_callable(), b.is_callable()),
            Value::Unknown => Cond::Unknown,
        }
    }

    /// What calling it returns (calling `None` raises: nothing to evaluate).
    fn call(&self) -> Value {
        match self {
            Value::Callable(cond) => Value::Bool(cond.clone()),
            Value::Either(a, b) => Value::either(a.call(), b.call()),
            _ => Value::Unknown,
        }
    }

    /// Python's `self or other`: the first truthy operand, else the last.
    fn or(self, other: Value) -> Value {
        match self {
            Value::Either(a, b) => Value::either(a.or(other.clone()), b.or(other)),
            Value::Callable(_) => self,
            Value::None => other,
            Value::Bool(Cond::Const(true)) => self,
            Value::Bool(Cond::Const(false)) => other,
            Value::Bool(a) => match other {
                Value::Bool(b) => Value::Bool(Cond::Or(vec![a, b])),
                _ => Value::Unknown,
            },
            Value::Unknown => Value::Unknown,
        }
    }

    /// Python's `self and other`: the first falsy operand, else the last.
    fn and(self, other: Value) -> Value {
        match self {
            Value::Either(a, b) => Value::either(a.and(other.clone()), b.and(other)),
            Value::Callable(_) => other,
            Value::None => self,
            Value::Bool(Cond::Const(false)) => self,
            Value::Bool(Cond::Const(true)) => other,
            Value::Bool(a) => match other {
                Value::Bool(b) => Value::Bool(Cond::And(vec![a, b])),
                _ => Value::Unknown,
            },
            Value::Unknown => Value::Unknown,
        }
    }

    /// A callable made only of torch's own predicates (no project call to resolve later).
    pub(crate) fn torch_predicate(&self) -> Option<Cond> {
        match self {
            Value::Callable(cond) if only_predicates(cond) => Some(cond.clone()),
            _ => None,
        }
    }
}

fn only_predicates(cond: &Cond) -> bool {
    match cond {
        Cond::Atom(Atom::Predicate(_)) | Cond::Const(_) => true,
        Cond::Not(inner) => only_predicates(inner),
        Cond::And(items) | Cond::Or(items) => items.iter().all(only_predicates),
        Cond::Choice(a, b) => only_predicates(a) && only_predicates(b),
        _ => false,
    }
}

impl<'a> SemanticModel<'a> {
    /// Does this torch API exist on every torch that can compile this project (at or above the
    /// floor, and never below torch.compile's own release)? `false` means "not on all of them".
    fn exists_whenever_compiling(&self, qualified: &str) -> bool {
        let Some(added) = TORCH.api_added_in(qualified) else {
            return false;
        };
        let compile_added = TORCH.api_added_in("torch.compile");
        let floor = match (self.torch_floor(), compile_added) {
            (Some(floor), Some(compile)) => Some(floor.max(compile)),
            (floor, compile) => floor.or(compile),
        };
        floor.is_some_and(|floor| added <= floor)
    }

    /// The value of `expr` under compile (see the module doc).
    pub(crate) fn eval_value(&self, expr: &Expr) -> Value {
        self.eval_depth(expr, 0, Follow::Locals)
    }

    fn eval_depth(&self, expr: &Expr, depth: u32, follow: Follow) -> Value {
        if depth > MAX_EXPR_DEPTH {
            return Value::Unknown;
        }
        match expr {
            Expr::NoneLiteral(_) => Value::None,
            Expr::BooleanLiteral(literal) => Value::Bool(Cond::Const(literal.value)),
            Expr::Name(name) => self.eval_name(name.id.as_str(), depth, follow),
            Expr::Attribute(_) => match self.resolve(expr) {
                Some(Sym::Dotted(qualified)) => atom_for_qualified(&qualified)
                    .map_or(Value::Unknown, |atom| Value::Callable(Cond::Atom(atom))),
                _ => Value::Unknown,
            },
            Expr::Call(call) => self.eval_call(expr, call, depth, follow),
            Expr::BoolOp(boolop) => {
                let mut values = boolop
                    .values
                    .iter()
                    .map(|v| self.eval_depth(v, depth + 1, follow));
                let Some(first) = values.next() else {
                    return Value::Unknown;
                };
                values.fold(first, |acc, value| match boolop.op {
                    ast::BoolOp::Or => acc.or(value),
                    ast::BoolOp::And => acc.and(value),
                })
            }
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => {
                let inner = self.eval_depth(&unary.operand, depth + 1, follow).truth();
                match inner {
                    Cond::Unknown => Value::Unknown,
                    Cond::Const(value) => Value::Bool(Cond::Const(!value)),
                    other => Value::Bool(Cond::Not(Box::new(other))),
                }
            }
            // `x is None` / `x is not None`
            Expr::Compare(compare)
                if compare.ops.len() == 1
                    && matches!(compare.ops[0], ast::CmpOp::Is | ast::CmpOp::IsNot)
                    && matches!(compare.comparators.first(), Some(Expr::NoneLiteral(_))) =>
            {
                let is_none = self.eval_depth(&compare.left, depth + 1, follow).is_none();
                let cond = match (compare.ops[0], is_none) {
                    (_, Cond::Unknown) => return Value::Unknown,
                    (ast::CmpOp::Is, cond) => cond,
                    (_, Cond::Const(value)) => Cond::Const(!value),
                    (_, cond) => Cond::Not(Box::new(cond)),
                };
                Value::Bool(cond)
            }
            Expr::If(if_expr) => {
                let body = || self.eval_depth(&if_expr.body, depth + 1, follow);
                let orelse = || self.eval_depth(&if_expr.orelse, depth + 1, follow);
                match self.eval_depth(&if_expr.test, depth + 1, follow).truth() {
                    Cond::Const(true) => body(),
                    Cond::Const(false) => orelse(),
                    _ => Value::either(body(), orelse()),
                }
            }
            _ => Value::Unknown,
        }
    }

    fn eval_name(&self, name: &str, depth: u32, follow: Follow) -> Value {
        match self.lookup(name) {
            Some(Binding::Predicate(cond)) => Value::Callable(cond.clone()),
            Some(Binding::Import(qualified)) => atom_for_qualified(qualified)
                .map_or(Value::Unknown, |atom| Value::Callable(Cond::Atom(atom))),
            // A project function: calling it may be a predicate (resolved when linking).
            Some(Binding::Def(qual)) => {
                Value::Callable(Cond::Atom(Atom::Call(Sym::Local(qual.clone()))))
            }
            // A local is followed one hop only (`f = f or g` must not recurse into itself), and
            // only to a predicate reference (`p = getattr(torch.compiler, "is_compiling", None)`):
            // its last assignment is not joined over branches, so `x = None` in one branch says
            // nothing about `x is None` after them.
            Some(_) if follow == Follow::Locals => match self.local_value(name) {
                Some(value) => match self.eval_depth(value, depth + 1, Follow::NotLocals) {
                    callable @ Value::Callable(_) => callable,
                    _ => Value::Unknown,
                },
                None => Value::Unknown,
            },
            Some(_) => Value::Unknown,
            None => Value::Unknown,
        }
    }

    fn eval_call(&self, expr: &Expr, call: &ast::ExprCall, depth: u32, follow: Follow) -> Value {
        let args = &*call.arguments.args;
        if !call.arguments.keywords.is_empty() {
            return Value::Unknown;
        }
        // `getattr(torch.compiler, "is_compiling", None)`: the function where torch has it on
        // every version that compiles, else that function or the default.
        if let Some(qualified) = self.getattr_target(expr) {
            let Some(atom) = atom_for_qualified(&qualified) else {
                return Value::Unknown;
            };
            let found = Value::Callable(Cond::Atom(atom));
            if self.exists_whenever_compiling(&qualified) {
                return found;
            }
            return match args.get(2) {
                Some(default) => Value::either(found, self.eval_depth(default, depth + 1, follow)),
                None => Value::Unknown,
            };
        }
        let builtin = |name: &str| self.is_builtin(&call.func, name);
        match args {
            [arg] if builtin("bool") => {
                Value::Bool(self.eval_depth(arg, depth + 1, follow).truth()).known()
            }
            [arg] if builtin("callable") => {
                Value::Bool(self.eval_depth(arg, depth + 1, follow).is_callable()).known()
            }
            _ => self.eval_depth(&call.func, depth + 1, follow).call(),
        }
    }
}

impl Value {
    /// `Bool(Unknown)` is just unknown.
    fn known(self) -> Value {
        match self {
            Value::Bool(Cond::Unknown) => Value::Unknown,
            other => other,
        }
    }
}
