//! Guard conditions: the part of an `if` test that tells whether code runs under `torch.compile`.
//!
//! A test is reduced to a small boolean formula over atoms we understand (is_compiling-like,
//! export/tracing predicates, `hasattr` probes, calls to project functions that may be predicates);
//! everything else is `Unknown`. Evaluation is three-valued.

use super::Sym;
use super::context::{ConstValue, ParamTest};
use super::data::{CompileValue, Predicate, PredicateKind, TORCH};
use crate::config::TorchVersion;

/// The name a message shows for a kind of export-like predicate.
pub fn display(kind: PredicateKind) -> &'static str {
    match kind {
        PredicateKind::Compiling => "torch.compiler.is_compiling()",
        PredicateKind::Exporting => "torch.compiler.is_exporting()",
        PredicateKind::OnnxExport => "torch.onnx.is_in_onnx_export()",
        PredicateKind::JitTracing => "torch.jit.is_tracing()",
        PredicateKind::JitScripting => "torch.jit.is_scripting()",
        PredicateKind::FxTracing => "torch.fx._symbolic_trace.is_fx_tracing()",
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Atom {
    /// A predicate from `rules/data/predicates.toml` (`torch.compiler.is_compiling`, ...).
    Predicate(&'static Predicate),
    /// `hasattr(<dotted>, "<attr>")` or `getattr(<dotted>, "<attr>", ...)`: a feature probe.
    Probe(String),
    /// A call to something that may be a project predicate; resolved when linking.
    Call(Sym),
    /// `isinstance(x, dict|list|tuple|str)` on the first parameter of the function (unannotated
    /// or annotated as a tensor, unchanged so far): False in a compiled root `forward`, whose
    /// input is a tensor (a dict input is the eager training-loss convention, e.g. ultralytics'
    /// `BaseModel.forward`).
    InputIsContainer,
    /// A parameter with a literal False / None / 0 default, read for truth (`if profile:`); False
    /// when no traced call passes it (decided when linking).
    FlagParam(String),
    /// `len(args) <op> n` on the function's own `*args` (unchanged so far): known when every
    /// traced call passes the same number of extra positional arguments (decided when linking).
    VarargLen(LenCompare, u32),
    /// `isinstance(p, tuple)` on parameter `p` (name, position): True when every traced call
    /// passes `x.shape` / `x.size()` for it (decided when linking).
    ParamIsSize(String, Option<u32>),
    /// A test of a parameter not reassigned so far against a constant (`pool_type == "avg"`,
    /// `if child:`): decided when every traced call gives the parameter the same constant
    /// (`context.rs`).
    ParamTest(String, ParamTest),
    /// `self.<attr>` read for truth in a method. `at_entry`: before the method could change it,
    /// so decided when every traced `self.m()` call comes from a path that established it
    /// (`context.rs`); otherwise never decided, but a caller's path under it establishes it.
    SelfAttr { attr: String, at_entry: bool },
    /// `self.<attr> is None`, `self.<attr> == "cubic"`: decided only for a constructor option
    /// read at its default (`semantic/options.rs`).
    SelfAttrIs { attr: String, test: ParamTest },
    /// A module-level name or `Class.X` of this file bound once to a constant, read for truth or
    /// compared with a constant: decided only at its default, when nothing in the tree changes
    /// it (`semantic/settings.rs`).
    Setting { name: String, test: ParamTest },
    /// `torch.__version__ >= X` (X as major, minor, patch): True when every torch that can
    /// compile is at or above X, else unknown (`model/torch_versions.rs`).
    TorchAtLeast([u32; 3]),
    /// A name of another project module read for truth (`from .compat import TORCH_GE_2`, or
    /// `compat.TORCH_GE_2`): that module's torch-version flag, decided when linking
    /// (`model/torch_versions.rs`); unknown when the name is no such flag.
    ProjectFlag(Sym),
}

impl Atom {
    /// The `self.<attr>` an atom reads, if it reads one.
    pub fn self_attr(&self) -> Option<&str> {
        match self {
            Atom::SelfAttr { attr, .. } | Atom::SelfAttrIs { attr, .. } => Some(attr),
            _ => None,
        }
    }
}

/// The comparison of a `len(*args)` atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LenCompare {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
}

impl LenCompare {
    pub fn holds(self, len: u32, n: u32) -> bool {
        match self {
            LenCompare::Eq => len == n,
            LenCompare::NotEq => len != n,
            LenCompare::Lt => len < n,
            LenCompare::LtE => len <= n,
            LenCompare::Gt => len > n,
            LenCompare::GtE => len >= n,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    Atom(Atom),
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    Const(bool),
    /// `a if test else b` where the test is not understood: known only when both sides agree.
    Choice(Box<Cond>, Box<Cond>),
    Unknown,
}

/// Three-valued truth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    True,
    False,
    Unknown,
}

impl Truth {
    pub fn not(self) -> Truth {
        match self {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        }
    }
    pub fn from_bool(value: bool) -> Truth {
        if value { Truth::True } else { Truth::False }
    }
}

/// How export-like predicates (exporting, ONNX export, jit tracing/scripting) are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportReading {
    /// Their value under compile from the data table, for the supported torch versions.
    FromTable,
    /// False, as on the torch versions where the export path is not taken (CR002's question).
    AllFalse,
}

/// How the evaluator treats each kind of atom. Compiling predicates are always True: the question
/// is always "what runs under torch.compile".
pub struct Assumptions<'a> {
    pub torch_floor: Option<TorchVersion>,
    pub export_reading: ExportReading,
    /// The guards belong to a compiled root `forward`: its first input is a tensor.
    pub input_is_tensor: bool,
    /// Is this flag parameter of the guards' function left at its default on every traced call?
    pub flag_at_default: &'a dyn Fn(&str) -> bool,
    /// How many arguments the guards' function's `*args` receives on every traced call, when
    /// all traced calls agree.
    pub vararg_len: Option<u32>,
    /// Does every traced call pass a torch.Size for this parameter of the guards' function?
    pub param_is_size: &'a dyn Fn(&str) -> bool,
    /// The constant every traced call gives this parameter of the guards' function.
    pub param_value: &'a dyn Fn(&str) -> Option<ConstValue>,
    /// The truth of `self.<attr>` on every traced `self.m()` call of the guards' function.
    pub self_attr: &'a dyn Fn(&str) -> Option<bool>,
    /// Resolves a project call to the predicate formula of the called function, if it is one.
    pub resolve_call: &'a dyn Fn(&Sym) -> Option<Cond>,
    /// Resolves a project name read for truth to the torch-version flag it is, if it is one.
    pub resolve_flag: &'a dyn Fn(&Sym) -> Option<Cond>,
    /// The value of `self.<attr>` when it is a constructor option read at its default
    /// (`semantic/options.rs`); `None` otherwise.
    pub option_value: &'a dyn Fn(&str) -> Option<ConstValue>,
    /// The value of a setting of the guards' file when read at its default
    /// (`semantic/settings.rs`); `None` otherwise.
    pub setting_value: &'a dyn Fn(&str) -> Option<ConstValue>,
}

impl Cond {
    /// Calls `f` with each `ParamIsSize` atom's parameter.
    pub fn for_each_size_param(&self, f: &mut dyn FnMut(&str, Option<u32>)) {
        match self {
            Cond::Atom(Atom::ParamIsSize(name, position)) => f(name, *position),
            Cond::Not(inner) => inner.for_each_size_param(f),
            Cond::And(items) | Cond::Or(items) => {
                items.iter().for_each(|c| c.for_each_size_param(f))
            }
            Cond::Choice(a, b) => {
                a.for_each_size_param(f);
                b.for_each_size_param(f);
            }
            _ => {}
        }
    }

    /// Calls `f` with each atom of the formula.
    pub fn for_each_atom(&self, f: &mut dyn FnMut(&Atom)) {
        match self {
            Cond::Atom(atom) => f(atom),
            Cond::Not(inner) => inner.for_each_atom(f),
            Cond::And(items) | Cond::Or(items) => items.iter().for_each(|c| c.for_each_atom(f)),
            Cond::Choice(a, b) => {
                a.for_each_atom(f);
                b.for_each_atom(f);
            }
            Cond::Const(_) | Cond::Unknown => {}
        }
    }

    /// True when the formula mentions anything worth keeping (otherwise it is dropped early).
    pub fn is_interesting(&self) -> bool {
        match self {
            Cond::Atom(_) => true,
            Cond::Not(inner) => inner.is_interesting(),
            Cond::And(items) | Cond::Or(items) => items.iter().any(Cond::is_interesting),
            Cond::Choice(a, b) => a.is_interesting() || b.is_interesting(),
            Cond::Const(_) | Cond::Unknown => false,
        }
    }

    pub fn mentions_probe(&self, attr: &str) -> bool {
        match self {
            Cond::Atom(Atom::Probe(name)) => name == attr,
            Cond::Not(inner) => inner.mentions_probe(attr),
            Cond::And(items) | Cond::Or(items) => items.iter().any(|c| c.mentions_probe(attr)),
            _ => false,
        }
    }

    /// The first export-like predicate this formula mentions, if any (through project predicates too).
    pub fn export_predicate(
        &self,
        resolve: &dyn Fn(&Sym) -> Option<Cond>,
        depth: u32,
    ) -> Option<&'static Predicate> {
        if depth > 8 {
            return None;
        }
        match self {
            Cond::Atom(Atom::Predicate(p)) if p.kind.is_export_like() => Some(p),
            Cond::Atom(Atom::Call(sym)) => {
                resolve(sym).and_then(|c| c.export_predicate(resolve, depth + 1))
            }
            Cond::Not(inner) => inner.export_predicate(resolve, depth),
            Cond::And(items) | Cond::Or(items) => items
                .iter()
                .find_map(|c| c.export_predicate(resolve, depth)),
            Cond::Choice(a, b) => a
                .export_predicate(resolve, depth)
                .or_else(|| b.export_predicate(resolve, depth)),
            _ => None,
        }
    }

    pub fn eval(&self, assume: &Assumptions<'_>) -> Truth {
        self.eval_depth(assume, 0)
    }

    fn eval_depth(&self, assume: &Assumptions<'_>, depth: u32) -> Truth {
        if depth > 8 {
            return Truth::Unknown;
        }
        match self {
            Cond::Const(value) => Truth::from_bool(*value),
            Cond::Unknown => Truth::Unknown,
            Cond::Atom(Atom::Predicate(p)) => match p.kind {
                PredicateKind::Compiling => Truth::True,
                _ => match assume.export_reading {
                    ExportReading::AllFalse => Truth::False,
                    ExportReading::FromTable => match p.value_under_compile(assume.torch_floor) {
                        CompileValue::True => Truth::True,
                        CompileValue::False => Truth::False,
                        CompileValue::Unknown => Truth::Unknown,
                    },
                },
            },
            Cond::Atom(Atom::Probe(_)) => Truth::Unknown,
            Cond::Atom(Atom::TorchAtLeast(version)) => {
                if super::model::torch_at_least_holds(*version, assume.torch_floor) {
                    Truth::True
                } else {
                    Truth::Unknown
                }
            }
            Cond::Atom(Atom::FlagParam(name)) => {
                if (assume.flag_at_default)(name) {
                    Truth::False
                } else {
                    // The atom reads both `if p:` and `p is not None`: decided only by a value
                    // for which the two agree.
                    match (assume.param_value)(name) {
                        Some(value) => value.flag_truth().map_or(Truth::Unknown, Truth::from_bool),
                        None => Truth::Unknown,
                    }
                }
            }
            Cond::Atom(Atom::ParamIsSize(name, _)) => {
                if (assume.param_is_size)(name) {
                    Truth::True
                } else {
                    Truth::Unknown
                }
            }
            Cond::Atom(Atom::ParamTest(name, test)) => match (assume.param_value)(name) {
                Some(value) => test.holds(&value).map_or(Truth::Unknown, Truth::from_bool),
                None => Truth::Unknown,
            },
            Cond::Atom(Atom::SelfAttr { attr, at_entry }) => {
                let from_callers = if *at_entry {
                    (assume.self_attr)(attr)
                } else {
                    None
                };
                match from_callers.or_else(|| (assume.option_value)(attr).map(|v| v.truthy())) {
                    Some(value) => Truth::from_bool(value),
                    None => Truth::Unknown,
                }
            }
            Cond::Atom(Atom::Setting { name, test }) => match (assume.setting_value)(name) {
                Some(value) => test.holds(&value).map_or(Truth::Unknown, Truth::from_bool),
                None => Truth::Unknown,
            },
            Cond::Atom(Atom::SelfAttrIs { attr, test }) => match (assume.option_value)(attr) {
                Some(value) => test.holds(&value).map_or(Truth::Unknown, Truth::from_bool),
                None => Truth::Unknown,
            },
            Cond::Atom(Atom::VarargLen(compare, n)) => match assume.vararg_len {
                Some(len) => Truth::from_bool(compare.holds(len, *n)),
                None => Truth::Unknown,
            },
            Cond::Atom(Atom::InputIsContainer) => {
                if assume.input_is_tensor {
                    Truth::False
                } else {
                    Truth::Unknown
                }
            }
            Cond::Atom(Atom::Call(sym)) => match (assume.resolve_call)(sym) {
                Some(cond) => cond.eval_depth(assume, depth + 1),
                None => Truth::Unknown,
            },
            Cond::Atom(Atom::ProjectFlag(sym)) => match (assume.resolve_flag)(sym) {
                Some(cond) => cond.eval_depth(assume, depth + 1),
                None => Truth::Unknown,
            },
            Cond::Not(inner) => inner.eval_depth(assume, depth).not(),
            Cond::And(items) => Self::eval_junction(items, Truth::False, assume, depth),
            Cond::Or(items) => Self::eval_junction(items, Truth::True, assume, depth),
            Cond::Choice(a, b) => {
                let (a, b) = (a.eval_depth(assume, depth), b.eval_depth(assume, depth));
                if a == b { a } else { Truth::Unknown }
            }
        }
    }

    /// `and` is decided by its first False operand, `or` by its first True one; otherwise an
    /// Unknown operand makes the whole Unknown.
    fn eval_junction(
        items: &[Cond],
        decisive: Truth,
        assume: &Assumptions<'_>,
        depth: u32,
    ) -> Truth {
        let mut result = decisive.not();
        for item in items {
            match item.eval_depth(assume, depth) {
                truth if truth == decisive => return decisive,
                Truth::Unknown => result = Truth::Unknown,
                _ => {}
            }
        }
        result
    }
}

/// The atom for a call to a function known by qualified name, if it is a guard predicate.
pub fn atom_for_qualified(qualified: &str) -> Option<Atom> {
    TORCH.predicates.get(qualified).map(Atom::Predicate)
}
