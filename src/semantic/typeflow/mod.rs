//! Type flow: which project classes and functions each variable, attribute, parameter and return
//! can hold, over the whole scanned tree — a small 0-CFA / RTA-style analysis (in the spirit of
//! PyCG), so that the call graph follows objects the code does not build where it uses them:
//! a backbone handed to a constructor, a head a factory function returns, a loss a method returns,
//! the blocks of a `ModuleList`, the value of a registry dict.
//!
//! Each file's walk records, per scope (function or module level), the facts below in this
//! intermediate form (`model/typeflow.rs`); the global step (`solve.rs`) evaluates them to a
//! fixpoint over all files and hands linking the extra call edges and compile targets.
//!
//! - abstract values: an instance of a project class, a project class itself, a project function
//!   (plain or bound to an instance);
//! - `x = e`, `self.a = e`, `Cls.a = e` (class body), `for x in e`, comprehensions: the target
//!   holds what `e` holds;
//! - a call binds the values of its arguments to the callee's parameters (positional, keyword,
//!   `*args` / `**kwargs`; constructors through `__init__`, `super().__init__(...)` included) and
//!   yields what the callee returns (an instance for a class);
//! - containers are transparent: a list, tuple, dict, set or `nn.ModuleList` / `ModuleDict` /
//!   `Sequential` holds what its elements hold, and iterating or indexing it yields them, as do
//!   `.append(e)` / `d[k] = e` stores; a call into code outside the project passes its arguments'
//!   values through (`copy.deepcopy(m)`, `m.to(device)`, `nn.Sequential(a, b)`);
//! - a method called on a value nothing is known about (`op = self._get_op(k); op.run(x)`) may run
//!   that method of every project class defining it, marked low confidence.

pub mod solve;

use super::Sym;
use super::summary::PathStep;

/// What an expression evaluates to, as far as the type flow follows it.
#[derive(Clone, Debug)]
pub enum ValueExpr {
    /// A bare name: a local of the scope when the scope binds it anywhere (flow-insensitive),
    /// else what the file binds it to (`bound`: an import, a definition), else a module-level
    /// variable of the file (or of a module it star-imports).
    Name {
        name: Box<str>,
        bound: Option<Sym>,
    },
    /// A name the file resolves outright (an imported dotted path, a local definition).
    Sym(Sym),
    /// `self` in a method: an instance of the class.
    SelfRef,
    /// `cls` in a classmethod: the class.
    ClsRef,
    Attr(Box<ValueExpr>, Box<str>),
    /// `super().attr` in a method.
    SuperAttr(Box<str>),
    /// What call number `n` of the same scope returns.
    Call(u32),
    /// Any of these (containers, `a or b`, `a if t else b`).
    Union(Vec<ValueExpr>),
    /// Nothing the type flow follows (literals, arithmetic, tensors).
    Opaque,
}

/// Where an assignment stores.
#[derive(Clone, Debug)]
pub enum Place {
    /// A local (a module-level variable at module level).
    Name(Box<str>),
    /// `self.attr` in a method of the class (local qualified name); a class-body assignment.
    Field { class: Box<str>, attr: Box<str> },
    /// `e.attr = v` on any other object.
    AttrOf(ValueExpr, Box<str>),
}

/// One call, with what it passes.
#[derive(Clone, Debug)]
pub struct FlowCall {
    pub callee: ValueExpr,
    pub positional: Vec<ValueExpr>,
    pub keywords: Vec<(Box<str>, ValueExpr)>,
    /// `*x` / `**x` spreads: their values may land in any parameter.
    pub star: Option<ValueExpr>,
    pub double_star: Option<ValueExpr>,
    /// Guards and exception paths leading to the call (a call Dynamo never traces compiles nothing).
    pub path: Box<[PathStep]>,
    pub row: u32,
    /// Where the call starts and ends (findings about what the type flow found it calls).
    pub location: crate::source::Location,
    pub end_location: crate::source::Location,
    /// The receiver is not known to be a tensor: a method call on an unknown value may fall back
    /// to every project class with that method name.
    pub by_name_fallback: bool,
}

/// A `torch.compile(x)` / `x.compile()` target as a value.
#[derive(Clone, Debug)]
pub struct FlowCompileTarget {
    pub value: ValueExpr,
    /// `x.compile()`: only a Module instance counts.
    pub module_method: bool,
    /// `fullgraph=True` is passed.
    pub fullgraph: bool,
}

/// The type-flow facts of one scope.
#[derive(Clone, Debug, Default)]
pub struct ScopeFlow {
    /// Positional parameters in order (`self` included for a method).
    pub params: Vec<Box<str>>,
    pub kwonly: Vec<Box<str>>,
    pub vararg: Option<Box<str>>,
    pub kwarg: Option<Box<str>>,
    /// The first parameter is bound to the instance (a method that is not a staticmethod).
    pub bound_first: bool,
    /// A `@classmethod`: the first parameter is the class.
    pub first_is_class: bool,
    /// Class local qualname for methods (what `self` / `cls` stand for).
    pub class: Option<Box<str>>,
    /// Names the scope binds (flow-insensitive: a name bound anywhere in it is its local).
    pub locals: Vec<Box<str>>,
    pub stores: Vec<(Place, ValueExpr)>,
    pub calls: Vec<FlowCall>,
    pub returns: Vec<ValueExpr>,
    pub compile_targets: Vec<FlowCompileTarget>,
}

impl ScopeFlow {
    pub fn binds(&self, name: &str) -> bool {
        self.locals.iter().any(|l| &**l == name)
    }

    pub fn bind(&mut self, name: &str) {
        if !self.binds(name) {
            self.locals.push(name.into());
        }
    }
}

/// A file's type-flow facts: one scope per function (by `FuncIdx`) and the module level.
#[derive(Clone, Debug, Default)]
pub struct FileFlow {
    pub functions: Vec<ScopeFlow>,
    pub module: ScopeFlow,
    /// Modules named by `from m import *` (resolved absolute), with the names their `__all__`
    /// lists when the importer could not see it (filled at link from the exporter).
    pub star_imports: Vec<String>,
    /// `__all__ = [...]` of this module, when it is a literal list or tuple of strings.
    pub all: Option<Vec<String>>,
}
