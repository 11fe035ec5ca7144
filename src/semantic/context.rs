//! Caller context: what every traced call of a function tells about its parameters and about
//! `self`, so a branch no caller can take is not traced.
//!
//! Dynamo specializes on Python constants: a `str`/`int`/`bool`/`None` argument and a plain
//! attribute of the module (`self.merged`) are guarded, and only the branch their values take
//! is traced. So, joined over **every** traced call edge (a fact holds only when all agree):
//!
//! - the constant each edge gives a parameter: passed as a literal, passed as the caller's own
//!   parameter whose value is known, or left at its literal default;
//! - the `self.<attr>` truths a `self.m()` edge's path established (`if self.merged:
//!   self.unmerge()`), read by the callee's tests of `self.<attr>` made before anything in the
//!   callee could change it.
//!
//! The model records the atoms (`Atom::ParamTest`, `Atom::SelfAttr`) and the constants calls
//! pass (`CallArgs`); linking joins them here (`Project::flags_at_default`).

use super::cond::{Atom, Cond};
use super::summary::{Branch, CallArgs, FunctionInfo, Guard, PathStep};
use ruff_python_ast::{self as ast, Expr};
use rustc_hash::FxHashMap as HashMap;

/// A Python constant Dynamo specializes on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstValue {
    None,
    Bool(bool),
    Int(i64),
    Str(String),
    /// A float literal (`0.0`, `0.5`), kept by its bits so the type stays `Eq`/`Hash`; compared by
    /// value (`py_eq`, `ParamTest::Order`): `prob=0.0` is an option like `prob=0`.
    Float(u64),
    /// One dimension of a tensor's shape passed as an argument (`x.shape[1]`, `x.size(-1)`): an
    /// int, never `None`; its value is unknown, and it is assumed non-zero (an empty dimension is
    /// not an input users compile for), so `if not n:` / `n or default` take the non-empty side.
    Dim,
    /// A tuple, list, set or dict display (or comprehension) passed as an argument (`size=(n,
    /// n)`): a new object, so never `None` and equal to no scalar constant, whatever its elements
    /// hold; truthy when it has an element (`nonempty`: `None` when a `*spread` or a
    /// comprehension leaves that unknown). Dynamo guards such an argument's type and length, so
    /// `if size is None:` in the callee is decided when it traces the call.
    Collection {
        nonempty: Option<bool>,
    },
}

impl ConstValue {
    /// The constant a literal expression is (`-1` included), if it is one.
    pub fn of(expr: &Expr) -> Option<ConstValue> {
        match expr {
            Expr::NoneLiteral(_) => Some(ConstValue::None),
            Expr::BooleanLiteral(literal) => Some(ConstValue::Bool(literal.value)),
            Expr::NumberLiteral(number) => match &number.value {
                ast::Number::Int(int) => int.as_i64().map(ConstValue::Int),
                ast::Number::Float(float) => Some(ConstValue::Float(float.to_bits())),
                ast::Number::Complex { .. } => None,
            },
            Expr::StringLiteral(literal) => {
                Some(ConstValue::Str(literal.value.to_str().to_owned()))
            }
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::USub => {
                match ConstValue::of(&unary.operand)? {
                    ConstValue::Int(int) => Some(ConstValue::Int(-int)),
                    ConstValue::Float(bits) => {
                        Some(ConstValue::Float((-f64::from_bits(bits)).to_bits()))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    pub fn truthy(&self) -> bool {
        match self {
            ConstValue::None => false,
            ConstValue::Bool(value) => *value,
            ConstValue::Int(value) => *value != 0,
            ConstValue::Str(value) => !value.is_empty(),
            ConstValue::Float(bits) => f64::from_bits(*bits) != 0.0,
            ConstValue::Dim => true,
            ConstValue::Collection { nonempty } => nonempty.unwrap_or(true),
        }
    }

    /// Whether a test of its truth is decided (`if p:`): not for a collection of unknown size.
    fn truth(&self) -> Option<bool> {
        match self {
            ConstValue::Collection { nonempty } => *nonempty,
            other => Some(other.truthy()),
        }
    }

    /// The number a numeric constant is (`True` is 1, as in Python); `None` for the others.
    pub fn number(&self) -> Option<f64> {
        match self {
            ConstValue::Bool(value) => Some(f64::from(u8::from(*value))),
            ConstValue::Int(value) => Some(*value as f64),
            ConstValue::Float(bits) => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }

    /// The value a falsy-default flag test (`if p:` and `p is not None` alike) reads, when the
    /// two agree on it (`0` and `""` are not `None` but falsy: undecided).
    pub fn flag_truth(&self) -> Option<bool> {
        match self {
            ConstValue::None => Some(false),
            ConstValue::Bool(value) => Some(*value),
            ConstValue::Int(value) => (*value != 0).then_some(true),
            ConstValue::Str(value) => (!value.is_empty()).then_some(true),
            ConstValue::Float(bits) => (f64::from_bits(*bits) != 0.0).then_some(true),
            ConstValue::Dim => Some(true),
            ConstValue::Collection { nonempty } => nonempty.filter(|&nonempty| nonempty),
        }
    }

    /// Python's `==` between two constants (`True == 1`).
    pub fn py_eq(&self, other: &ConstValue) -> bool {
        let as_int = |value: &ConstValue| match value {
            ConstValue::Bool(b) => Some(i64::from(*b)),
            ConstValue::Int(i) => Some(*i),
            _ => None,
        };
        match (as_int(self), as_int(other)) {
            (Some(a), Some(b)) => a == b,
            _ => match (self.number(), other.number()) {
                (Some(a), Some(b)) => a == b,
                _ => self == other,
            },
        }
    }
}

/// What a guard asks of a parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamTest {
    /// `if p:`
    Truthy,
    /// `p == c`, `p is c` (for `None` and booleans identity and equality agree).
    Equals(ConstValue),
    /// `p > 0`, `p <= 0.5`: an ordering against a number (`self.prob > 0` on a `prob=0.0`
    /// option).
    Order(Order, ConstValue),
}

/// An ordering comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Lt,
    LtE,
    Gt,
    GtE,
}

impl Order {
    pub fn of(op: ast::CmpOp) -> Option<Order> {
        match op {
            ast::CmpOp::Lt => Some(Order::Lt),
            ast::CmpOp::LtE => Some(Order::LtE),
            ast::CmpOp::Gt => Some(Order::Gt),
            ast::CmpOp::GtE => Some(Order::GtE),
            _ => None,
        }
    }

    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Order::Lt => a < b,
            Order::LtE => a <= b,
            Order::Gt => a > b,
            Order::GtE => a >= b,
        }
    }
}

impl ParamTest {
    /// Whether the test holds for `value`; `None` when it depends on a value only known at run
    /// time (a dimension compared with a number).
    pub fn holds(&self, value: &ConstValue) -> Option<bool> {
        match (self, value) {
            (ParamTest::Truthy, value) => value.truth(),
            // A shape dimension's value is unknown; a string or `None` ordered with a number
            // raises, which is not a branch taken.
            (ParamTest::Order(order, number), value) => {
                Some(order.holds(value.number()?, number.number()?))
            }
            (ParamTest::Equals(ConstValue::Dim | ConstValue::Collection { .. }), _) => None,
            // A fresh tuple/list/set/dict is not `None`, a bool, a number or a string.
            (ParamTest::Equals(_), ConstValue::Collection { .. }) => Some(false),
            (ParamTest::Equals(constant), ConstValue::Dim) => match constant {
                ConstValue::None | ConstValue::Str(_) => Some(false),
                _ => None,
            },
            (ParamTest::Equals(constant), value) => Some(value.py_eq(constant)),
        }
    }
}

/// The `self.<attr>` truths the guards on `path` establish (`if self.merged:` → merged=True).
pub fn self_facts(path: &[PathStep], guards: &[Guard]) -> Vec<(String, bool)> {
    let mut facts = Vec::new();
    for step in path {
        if let PathStep::Guard(guard, branch) = *step {
            collect_facts(
                &guards[guard as usize].cond,
                branch == Branch::WhenTrue,
                &mut facts,
            );
        }
    }
    facts
}

/// The facts `cond == truth` implies (only the certain ones: every operand of a true `and`,
/// of a false `or`).
fn collect_facts(cond: &Cond, truth: bool, facts: &mut Vec<(String, bool)>) {
    match cond {
        Cond::Atom(Atom::SelfAttr { attr, .. }) => {
            facts.retain(|(known, _)| known != attr);
            facts.push((attr.clone(), truth));
        }
        Cond::Not(inner) => collect_facts(inner, !truth, facts),
        Cond::And(items) if truth => items.iter().for_each(|c| collect_facts(c, true, facts)),
        Cond::Or(items) if !truth => items.iter().for_each(|c| collect_facts(c, false, facts)),
        _ => {}
    }
}

/// Facts joined over call edges: a fact survives only when every edge gives it the same value.
#[derive(Debug)]
pub struct Join<K, V> {
    /// `None`: the edges disagree (or one did not know).
    known: HashMap<K, Option<V>>,
}

impl<K: std::hash::Hash + Eq, V: PartialEq> Default for Join<K, V> {
    fn default() -> Self {
        Join {
            known: HashMap::default(),
        }
    }
}

impl<K: std::hash::Hash + Eq + Clone, V: PartialEq + Clone> Join<K, V> {
    /// Joins one edge's value for `key` (`None`: this edge does not know it).
    pub fn add(&mut self, key: K, value: Option<V>) {
        self.known
            .entry(key)
            .and_modify(|known| {
                if *known != value {
                    *known = None;
                }
            })
            .or_insert(value);
    }

    /// Joins one edge that knows exactly `facts` (every key it does not name becomes unknown).
    pub fn add_all(&mut self, first: bool, facts: &[(K, V)]) {
        if first {
            for (key, value) in facts {
                self.known.insert(key.clone(), Some(value.clone()));
            }
            return;
        }
        for (key, known) in self.known.iter_mut() {
            let here = facts.iter().find(|(k, _)| k == key).map(|(_, v)| v);
            if known.as_ref() != here {
                *known = None;
            }
        }
    }

    /// The facts every edge agreed on.
    pub fn agreed(self) -> HashMap<K, V> {
        self.known
            .into_iter()
            .filter_map(|(key, value)| Some((key, value?)))
            .collect()
    }
}

/// The constant one call edge gives parameter `name` (at `position` among the positional
/// parameters after `self`) of `callee`, if it is known: a literal argument, the caller's own
/// parameter whose value is known (`caller_values`), or the literal default when nothing is
/// passed for it. `star_empty` / `double_star_empty`: the call's `*x` / `**x` spreads pass
/// nothing (for `**x`: nothing named `name`).
pub fn edge_value(
    args: &CallArgs,
    callee: &FunctionInfo,
    name: &str,
    position: Option<u32>,
    star_empty: bool,
    double_star_empty: bool,
    caller_values: Option<&HashMap<String, ConstValue>>,
) -> Option<ConstValue> {
    let passed = |constant: Option<&Option<ConstValue>>, variable: Option<&Option<String>>| {
        known_constant(constant, variable, caller_values)
    };
    if let Some(index) = args
        .keywords
        .iter()
        .position(|(keyword, _)| keyword == name)
    {
        return passed(
            args.keyword_consts.get(index),
            args.keywords.get(index).map(|(_, variable)| variable),
        );
    }
    if let Some(position) = position {
        if !star_empty {
            return None;
        }
        let index = position as usize;
        if index < args.positional.len() {
            return passed(
                args.positional_consts.get(index),
                args.positional.get(index),
            );
        }
    }
    if !double_star_empty {
        return None;
    }
    callee
        .param_defaults
        .iter()
        .find(|(param, _)| param == name)
        .map(|(_, default)| default.clone())
}

/// The constant one argument passes: its literal, or the value the caller's parameter it names
/// is known to hold on every traced call (`caller_values`).
pub fn known_constant(
    constant: Option<&Option<ConstValue>>,
    variable: Option<&Option<String>>,
    caller_values: Option<&HashMap<String, ConstValue>>,
) -> Option<ConstValue> {
    if let Some(Some(constant)) = constant {
        return Some(constant.clone());
    }
    let variable = variable?.as_deref()?;
    caller_values?.get(variable).cloned()
}
