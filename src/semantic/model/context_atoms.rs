//! The atoms of caller context (`semantic/context.rs`): tests of a parameter against a constant
//! and truth tests of `self.<attr>`, recorded with roots configured only (linking decides them
//! from the traced calls, which only then are followed with their arguments).

use super::{FrameKind, SemanticModel};
use crate::semantic::cond::{Atom, Cond};
use crate::semantic::context::{ConstValue, Order, ParamTest};
use crate::semantic::summary::FuncIdx;
use ruff_python_ast::{self as ast, Expr};

impl<'a> SemanticModel<'a> {
    /// `if child:` / `if mode == "avg":` / `mode in ("avg", "max")` / `if self.merged:`, as
    /// a caller-context atom (or its negation), when `expr` is one.
    pub(crate) fn context_atom(&self, expr: &Expr) -> Option<Cond> {
        // `self.<attr>` tests are recorded with or without roots: a constructor option read at
        // its default decides them either way (`semantic/options.rs`).
        if let Some(cond) = self.self_attr_test(expr) {
            return Some(cond);
        }
        // A module- or class-level setting (`model/settings.rs`), with or without roots.
        if let Some(cond) = self.setting_test(expr) {
            return Some(cond);
        }
        if !self.ctx.roots_configured {
            return None;
        }
        match expr {
            Expr::Name(name) => {
                let name = name.id.as_str();
                // A falsy-default flag keeps its own atom (`Atom::FlagParam`).
                if self.is_flag_param(name) {
                    return None;
                }
                let (param, _) = self.unchanged_param(name)?;
                Some(Cond::Atom(Atom::ParamTest(param, ParamTest::Truthy)))
            }
            Expr::Compare(compare) if compare.ops.len() == 1 => {
                let Expr::Name(name) = &*compare.left else {
                    return None;
                };
                let name = name.id.as_str();
                let op = compare.ops[0];
                let comparator = compare.comparators.first()?;
                // `p is None` on a `p=None` flag keeps its own atom.
                if matches!(op, ast::CmpOp::Is | ast::CmpOp::IsNot)
                    && matches!(comparator, Expr::NoneLiteral(_))
                    && self.is_none_flag_param(name)
                {
                    return None;
                }
                let (param, _) = self.unchanged_param(name)?;
                compared_with_constant(op, comparator, |test| {
                    Cond::Atom(Atom::ParamTest(param.clone(), test))
                })
            }
            _ => None,
        }
    }

    /// `self.<attr>` read for truth, or compared with a constant (`self.mode == "cubic"`,
    /// `self.proj is None`), in a method.
    fn self_attr_test(&self, expr: &Expr) -> Option<Cond> {
        match expr {
            Expr::Attribute(attribute) => self.self_attr_atom(attribute),
            Expr::Compare(compare) if compare.ops.len() == 1 => {
                let Expr::Attribute(attribute) = &*compare.left else {
                    return None;
                };
                let Cond::Atom(Atom::SelfAttr { attr, .. }) = self.self_attr_atom(attribute)?
                else {
                    return None;
                };
                let op = compare.ops[0];
                let comparator = compare.comparators.first()?;
                compared_with_constant(op, comparator, |test| {
                    Cond::Atom(Atom::SelfAttrIs {
                        attr: attr.clone(),
                        test,
                    })
                })
            }
            _ => None,
        }
    }

    /// `self.<attr>` read for truth directly in a method. Its value at the method's entry (what
    /// callers' guards establish) only while nothing could have changed it: outside loops,
    /// before any write of `self.<attr>` and any call of another method on `self` in this
    /// method. Elsewhere the atom still records what a caller's path establishes for the calls
    /// under it, but is not decided.
    fn self_attr_atom(&self, attribute: &ast::ExprAttribute) -> Option<Cond> {
        // `self.<sub>.<inner>`: decided only as the option of the submodule's class (never at
        // entry: no caller's guard establishes it).
        if let Some((_, sub)) = self.self_attribute(&attribute.value) {
            return Some(Cond::Atom(Atom::SelfAttr {
                attr: format!("{sub}.{}", attribute.attr.id),
                at_entry: false,
            }));
        }
        let Expr::Name(owner) = &*attribute.value else {
            return None;
        };
        let frame = self.function_frame()?;
        let FrameKind::Function {
            idx,
            self_name: Some(self_name),
            ..
        } = &frame.kind
        else {
            return None;
        };
        if owner.id.as_str() != self_name.as_str() {
            return None;
        }
        let attr = attribute.attr.id.to_string();
        let info = &self.summary.functions[*idx as usize];
        let at_entry = self.loop_depth == 0
            && !info.self_writes.contains(&attr)
            && !info.calls.iter().any(|call| {
                matches!(
                    call.sym,
                    crate::semantic::Sym::SelfAttr { .. } | crate::semantic::Sym::SuperAttr { .. }
                )
            });
        Some(Cond::Atom(Atom::SelfAttr { attr, at_entry }))
    }

    /// Records what linking needs for the context atoms of a guard of function `func`: the
    /// tested parameters and their positions, whether `self.<attr>` is tested at entry.
    pub(crate) fn note_context_atoms(&mut self, func: FuncIdx, cond: &Cond) {
        if !self.ctx.roots_configured {
            return;
        }
        let mut params = Vec::new();
        let mut self_attrs = false;
        cond.for_each_atom(&mut |atom| match atom {
            Atom::ParamTest(name, _) => {
                if let Some(param) = self.unchanged_param(name) {
                    params.push(param);
                }
            }
            // A falsy-default flag's truth is also decided by a value every traced call passes
            // (a shape dimension: never `None`, taken as non-zero).
            Atom::FlagParam(name) => {
                if let Some(param) = self.unchanged_param(name) {
                    params.push(param);
                }
            }
            Atom::SelfAttr { at_entry: true, .. } => self_attrs = true,
            _ => {}
        });
        let info = &mut self.summary.functions[func as usize];
        info.tests_self_attrs |= self_attrs;
        for param in params {
            if !info.const_params.contains(&param) {
                info.const_params.push(param);
            }
        }
    }

    /// Notes the parameters with a literal default that function `func` passes on unchanged
    /// (`def items(self, copy=True): return helper(copy)`): linking joins their constants over
    /// the traced calls like a tested parameter's, so a constant given at the top of a chain of
    /// calls reaches the function that tests it.
    pub(crate) fn note_forwarded_params(&mut self, func: FuncIdx, arguments: &ast::Arguments) {
        if !self.ctx.roots_configured {
            return;
        }
        let passed = arguments
            .args
            .iter()
            .chain(arguments.keywords.iter().map(|keyword| &keyword.value));
        let mut forwarded = Vec::new();
        for argument in passed {
            let Expr::Name(name) = argument else { continue };
            let name = name.id.as_str();
            let info = &self.summary.functions[func as usize];
            if !info.param_defaults.iter().any(|(param, _)| param == name) {
                continue;
            }
            if let Some(param) = self.unchanged_param(name) {
                forwarded.push(param);
            }
        }
        let info = &mut self.summary.functions[func as usize];
        for param in forwarded {
            if !info.const_params.contains(&param) {
                info.const_params.push(param);
            }
        }
    }

    /// Notes `self.<attr> = ...` (and augmented / annotated stores) in the current method.
    pub(crate) fn note_self_write(&mut self, target: &Expr) {
        if !self.ctx.roots_configured {
            return;
        }
        let Expr::Attribute(attribute) = target else {
            return;
        };
        let Expr::Name(owner) = &*attribute.value else {
            return;
        };
        let Some(frame) = self.function_frame() else {
            return;
        };
        let FrameKind::Function {
            idx,
            self_name: Some(self_name),
            ..
        } = &frame.kind
        else {
            return;
        };
        if owner.id.as_str() != self_name.as_str() {
            return;
        }
        let idx = *idx;
        let attr = attribute.attr.id.as_str();
        let writes = &mut self.summary.functions[idx as usize].self_writes;
        if !writes.iter().any(|w| w == attr) {
            writes.push(attr.to_owned());
        }
    }
}

/// `x <op> comparator` as a condition over `test(t)` (x passes the test t): `==`/`!=` with a
/// constant, `is`/`is not` with `None` or a boolean (identity and equality agree for those only),
/// `in`/`not in` a literal tuple, list or set of constants, `<`/`<=`/`>`/`>=` a number. `None` for
/// any other comparison.
pub(super) fn compared_with_constant(
    op: ast::CmpOp,
    comparator: &Expr,
    test: impl Fn(ParamTest) -> Cond,
) -> Option<Cond> {
    if let Some(order) = Order::of(op) {
        let number = ConstValue::of(comparator)?;
        number.number()?;
        return Some(test(ParamTest::Order(order, number)));
    }
    let equals = |constant: ConstValue| test(ParamTest::Equals(constant));
    let positive = match op {
        ast::CmpOp::Eq | ast::CmpOp::NotEq => equals(ConstValue::of(comparator)?),
        ast::CmpOp::Is | ast::CmpOp::IsNot => match ConstValue::of(comparator)? {
            constant @ (ConstValue::None | ConstValue::Bool(_)) => equals(constant),
            _ => return None,
        },
        ast::CmpOp::In | ast::CmpOp::NotIn => {
            let elements = match comparator {
                Expr::Tuple(tuple) => &tuple.elts,
                Expr::List(list) => &list.elts,
                Expr::Set(set) => &set.elts,
                _ => return None,
            };
            Cond::Or(
                elements
                    .iter()
                    .map(|element| ConstValue::of(element).map(&equals))
                    .collect::<Option<Vec<_>>>()?,
            )
        }
        _ => return None,
    };
    Some(match op {
        ast::CmpOp::NotEq | ast::CmpOp::IsNot | ast::CmpOp::NotIn => Cond::Not(Box::new(positive)),
        _ => positive,
    })
}
