//! The per-file semantic model: what names are bound to (imports, aliases, definitions, locals),
//! which guard conditions and exception paths lead to the code being visited, and what one file
//! contributes to the project (definitions, call sites, guards). It never names a rule: the
//! checker (`src/scan/checker.rs`) drives it through one walk and hands rules a read-only view.

use super::Sym;
use super::cond::{Atom, Cond, LenCompare, atom_for_qualified};
use super::context::ConstValue;
use super::data::TORCH;
use super::summary::{
    Branch, CallArgs, CallEdge, CallSite, ClassInfo, CompileForm, CompileTarget, FileSummary,
    FuncIdx, FunctionInfo, Guard, GuardIdx, IndexArg, PathStep, ProjectCall,
};
use super::tensor::TensorKind;
use facts::Follow;
use flow::LocalFacts;
pub(crate) use flow::path_ends;

mod context_atoms;
mod dispatch;
mod effects;
mod eval;
mod facts;
mod flow;
mod gates;
mod memo;
mod typeflow;
use typeflow::dotted_text;
mod host_index;
mod versions;
mod warnings;
use crate::config::TorchVersion;
use crate::diagnostics::Edit;
use crate::source::{LineIndex, Location};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};
use std::collections::{HashMap, HashSet};
// The per-function frames are looked up on every name an expression mentions: FxHash, not SipHash
// (keys are source identifiers, nothing adversarial to guard against; none is iterated for output).
type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// Bound for the small recursive helpers (tensor-ness, guard formulas, searches in one expression).
pub(crate) const MAX_EXPR_DEPTH: u32 = 48;

/// Everything a file's analysis needs to know from outside the file.
pub struct FileContext<'a> {
    pub module: String,
    pub is_package_init: bool,
    /// Top-level module names of the project, so imports of project code become call-graph edges.
    pub project_roots: &'a HashSet<String>,
    pub torch_floor: Option<TorchVersion>,
    /// Where the floor came from, for messages ("pyproject.toml: torch>=2.2").
    pub torch_floor_origin: &'a str,
    /// Compile roots are configured: record what only roots use (flag parameters, call
    /// arguments); without roots that work and memory are skipped.
    pub roots_configured: bool,
    /// `--type-flow`: record the values assignments, calls and returns carry (`model/typeflow.rs`).
    pub type_flow: bool,
}

#[derive(Clone, Debug)]
enum Binding {
    Import(String),
    Def(String),
    Class(String),
    Predicate(Cond),
    /// Bound to something we don't model; shadows outer bindings.
    Other,
}

struct Frame<'a> {
    /// Local qualified name of the class or function.
    qual: String,
    kind: FrameKind,
    bindings: FxMap<String, Binding>,
    locals: FxMap<String, TensorKind>,
    /// What the locals hold where a join must agree (host-built, on the host, numpy, shape
    /// lists): `model/flow.rs`.
    facts: LocalFacts<'a>,
    /// The expression last assigned to each simple local (for rules that look through a name).
    values: FxMap<String, &'a Expr>,
    /// Parameters annotated with a project class (`config: MyConfig`, `head: Head | None`).
    param_classes: FxMap<String, Sym>,
    /// The first positional parameter after `self` (a function's input).
    first_input: Option<String>,
    /// Positional parameters (after `self`) by name and position; keyword-only ones with `None`.
    /// Filled only with roots (for call-argument facts).
    param_positions: Vec<(String, Option<u32>)>,
    /// Every parameter's name (host-index facts: an index that is a parameter depends on the
    /// callers).
    param_names: Vec<String>,
}

enum FrameKind {
    Class,
    Function {
        idx: FuncIdx,
        /// Name of the first parameter of a method (`self`).
        self_name: Option<String>,
        class: Option<String>,
    },
}

pub struct SemanticModel<'a> {
    source: &'a str,
    lines: &'a LineIndex,
    ctx: &'a FileContext<'a>,
    package: String,
    module_bindings: FxMap<String, Binding>,
    /// Version flags asserted at the top of the enclosing functions, with where each assertion
    /// ends (`model/versions.rs`).
    version_asserts: Vec<(u32, Sym)>,
    frames: Vec<Frame<'a>>,
    path: Vec<PathStep>,
    /// > 0 inside `try:` bodies whose handlers catch ImportError/AttributeError (feature probes).
    feature_probe_depth: u32,
    /// > 0 inside `try:` bodies whose handlers catch ImportError (an availability probe).
    import_probe_depth: u32,
    last_if_guard: Option<GuardIdx>,
    /// `for`/`while` loops around the code, in the current function.
    loop_depth: u32,
    /// Attributes probed by an enclosing `hasattr(...) and ...` or conditional expression.
    probes: Vec<String>,
    /// `(class, attr)` pairs some method initializes to a Python int (`self.calls = 0`).
    int_attributes: HashMap<String, HashSet<String>>,
    /// Module-level `NAME = {key: callable, ...}` dispatch dicts.
    module_dicts: HashMap<String, &'a ast::ExprDict>,
    /// `self.attr = {key: Class(...), ...}` dispatch dicts: the callees of `self.attr[k](...)`.
    self_dicts: HashMap<(String, String), Vec<Sym>>,
    /// Guard index of each recorded `if` statement, by its start offset (for early returns nested
    /// in `with` / `try` bodies).
    if_guards: HashMap<TextSize, GuardIdx>,
    /// Call start offset → its index among its scope's type-flow calls (`model/typeflow.rs`).
    flow_call_index: FxMap<u32, u32>,
    /// Targets of the `for` loops and comprehensions around the code, with where their values
    /// may come from the host (`model/host_index.rs`); a cell so that reading a comprehension
    /// from outside can bind its targets for the time of the read.
    index_loops: std::cell::RefCell<Vec<(String, Vec<super::summary::IndexDep>)>>,
    /// Comprehensions around the code (their element runs once per iteration).
    iteration_depth: std::cell::Cell<u32>,
    /// Nesting of the host-index evaluation in progress (bounds its mutual recursion).
    index_nesting: std::cell::Cell<u32>,
    /// Steps left to the host-index question in progress.
    index_budget: std::cell::Cell<u32>,
    /// `(class, attr)` set from a constructor parameter (`self.matcher = matcher`).
    injected_attrs: HashSet<(String, String)>,
    summary: FileSummary,
}

/// Where a saved piece of model state (guard path, probes) is restored to.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    path: usize,
    probes: usize,
}

/// What entering a function saved, for [`SemanticModel::leave_function`].
pub struct FunctionScope {
    idx: FuncIdx,
    version_asserts: usize,
    path: Vec<PathStep>,
    feature_probe_depth: u32,
    import_probe_depth: u32,
    loop_depth: u32,
    /// Host-index bindings (`index_loops`) before the function: its own go when it ends.
    index_bindings: usize,
}

/// What the handlers of a `try` catch, for [`SemanticModel::enter_try_body`].
#[derive(Clone, Copy, Debug)]
pub struct TryHandlers {
    probe_errors: bool,
    import_failure: bool,
}

impl<'a> SemanticModel<'a> {
    pub(crate) fn new(
        source: &'a str,
        lines: &'a LineIndex,
        ctx: &'a FileContext<'a>,
        summary: FileSummary,
    ) -> SemanticModel<'a> {
        let package = if ctx.is_package_init {
            ctx.module.clone()
        } else {
            ctx.module
                .rsplit_once('.')
                .map(|(p, _)| p.to_owned())
                .unwrap_or_default()
        };
        SemanticModel {
            source,
            lines,
            ctx,
            package,
            module_bindings: FxMap::default(),
            frames: Vec::new(),
            path: Vec::new(),
            feature_probe_depth: 0,
            import_probe_depth: 0,
            last_if_guard: None,
            loop_depth: 0,
            probes: Vec::new(),
            version_asserts: Vec::new(),
            int_attributes: HashMap::new(),
            module_dicts: HashMap::new(),
            self_dicts: HashMap::new(),
            if_guards: HashMap::new(),
            flow_call_index: FxMap::default(),
            index_loops: std::cell::RefCell::default(),
            iteration_depth: std::cell::Cell::new(0),
            index_nesting: std::cell::Cell::new(0),
            index_budget: std::cell::Cell::new(0),
            injected_attrs: HashSet::new(),
            summary,
        }
    }

    /// The oldest torch the project supports, if known.
    pub fn torch_floor(&self) -> Option<TorchVersion> {
        self.ctx.torch_floor
    }

    /// Where the torch floor came from, for messages.
    pub fn torch_floor_origin(&self) -> &str {
        self.ctx.torch_floor_origin
    }

    // ----- bindings -------------------------------------------------------------------------

    pub(crate) fn collect_module_bindings(&mut self, body: &'a [Stmt]) {
        for stmt in body {
            match stmt {
                Stmt::Import(import) => {
                    for (name, target) in import_bindings(import) {
                        self.module_bindings
                            .entry(name)
                            .or_insert(Binding::Import(target));
                    }
                }
                Stmt::ImportFrom(import) => {
                    if import
                        .names
                        .iter()
                        .any(|alias| alias.name.id.as_str() == "*")
                    {
                        let module = self.import_from_module(import);
                        self.summary.flow.star_imports.push(module);
                    }
                    for (name, target) in self.import_from_bindings(import) {
                        self.module_bindings
                            .entry(name)
                            .or_insert(Binding::Import(target));
                    }
                }
                Stmt::FunctionDef(def) => {
                    let name = def.name.id.to_string();
                    self.module_bindings
                        .entry(name.clone())
                        .or_insert(Binding::Def(name));
                }
                Stmt::ClassDef(class) => {
                    let name = class.name.id.to_string();
                    self.module_bindings
                        .entry(name.clone())
                        .or_insert(Binding::Class(name));
                }
                Stmt::Assign(assign) => {
                    if let [Expr::Name(target)] = assign.targets.as_slice() {
                        if target.id.as_str() == "__all__" {
                            self.summary.flow.all = typeflow::literal_names(&assign.value);
                        }
                        if let Expr::Dict(dict) = &*assign.value {
                            self.module_dicts.insert(target.id.to_string(), dict);
                        }
                        self.note_version_flag(target.id.as_str(), &assign.value);
                        let binding = self.binding_for_value(&assign.value);
                        self.module_bindings
                            .entry(target.id.to_string())
                            .or_insert(binding);
                    }
                }
                Stmt::If(stmt_if) => {
                    self.collect_module_bindings(&stmt_if.body);
                    for clause in &stmt_if.elif_else_clauses {
                        self.collect_module_bindings(&clause.body);
                    }
                }
                Stmt::Try(stmt_try) => {
                    // The try body binds first: `try: from torch.compiler import is_compiling`
                    // wins over the fallback `def is_compiling(): return False` in the handler.
                    self.collect_module_bindings(&stmt_try.body);
                    for handler in &stmt_try.handlers {
                        let ast::ExceptHandler::ExceptHandler(handler) = handler;
                        self.collect_module_bindings(&handler.body);
                    }
                    self.collect_module_bindings(&stmt_try.orelse);
                }
                Stmt::With(with) => self.collect_module_bindings(&with.body),
                _ => {}
            }
        }
    }

    /// What `name = value` binds: an alias of an import, a guard predicate, or something opaque.
    fn binding_for_value(&self, value: &Expr) -> Binding {
        if let Some(cond) = self.predicate_reference(value) {
            return Binding::Predicate(cond);
        }
        match self.resolve(value) {
            Some(Sym::Dotted(target)) if matches!(value, Expr::Attribute(_) | Expr::Name(_)) => {
                Binding::Import(target)
            }
            _ => Binding::Other,
        }
    }

    /// `torch.compiler.is_compiling` (uncalled) or `getattr(torch.compiler, "is_compiling", ...)`:
    /// a reference to a guard predicate, as a formula for what calling it returns.
    pub fn predicate_reference(&self, value: &Expr) -> Option<Cond> {
        // `f = torch.compiler.is_compiling if hasattr(...) else torch._dynamo.is_compiling`
        if let Expr::If(if_expr) = value {
            let body = self.plain_predicate_reference(&if_expr.body);
            let orelse = self.plain_predicate_reference(&if_expr.orelse);
            return match (body, orelse) {
                (Some(a), Some(b)) if a == b => Some(a),
                (Some(a), Some(b)) => Some(Cond::Choice(Box::new(a), Box::new(b))),
                _ => self.eval_value(value).torch_predicate(),
            };
        }
        self.plain_predicate_reference(value)
            .or_else(|| self.eval_value(value).torch_predicate())
    }

    /// A predicate reference that is not a conditional expression.
    fn plain_predicate_reference(&self, value: &Expr) -> Option<Cond> {
        if let Some(qualified) = self.getattr_target(value) {
            return atom_for_qualified(&qualified).map(Cond::Atom);
        }
        match self.resolve(value)? {
            Sym::Dotted(qualified) => atom_for_qualified(&qualified).map(Cond::Atom),
            _ => None,
        }
    }

    /// `getattr(<dotted>, "<attr>", ...)` → `<dotted>.<attr>`.
    pub fn getattr_target(&self, expr: &Expr) -> Option<String> {
        let Expr::Call(call) = expr else { return None };
        if !self.is_builtin(&call.func, "getattr") {
            return None;
        }
        let [object, Expr::StringLiteral(attr), ..] = &*call.arguments.args else {
            return None;
        };
        match self.resolve(object)? {
            Sym::Dotted(base) => Some(format!("{base}.{}", attr.value.to_str())),
            _ => None,
        }
    }

    pub fn import_from_bindings(&self, import: &ast::StmtImportFrom) -> Vec<(String, String)> {
        let base = self.import_from_module(import);
        import
            .names
            .iter()
            .filter(|alias| alias.name.id.as_str() != "*")
            .map(|alias| {
                let bound = alias.asname.as_ref().unwrap_or(&alias.name).id.to_string();
                let target = if base.is_empty() {
                    alias.name.id.to_string()
                } else {
                    format!("{base}.{}", alias.name.id)
                };
                (bound, target)
            })
            .collect()
    }

    pub fn import_from_module(&self, import: &ast::StmtImportFrom) -> String {
        let module = import.module.as_ref().map(|m| m.id.as_str()).unwrap_or("");
        if import.level == 0 {
            return module.to_owned();
        }
        let mut parts: Vec<&str> = if self.package.is_empty() {
            Vec::new()
        } else {
            self.package.split('.').collect()
        };
        for _ in 1..import.level {
            parts.pop();
        }
        if !module.is_empty() {
            parts.push(module);
        }
        parts.join(".")
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        for frame in self.frames.iter().rev() {
            if let FrameKind::Function { .. } = frame.kind {
                if let Some(binding) = frame.bindings.get(name) {
                    return Some(binding);
                }
                if frame.locals.contains_key(name) {
                    return Some(&Binding::Other);
                }
            }
        }
        self.module_bindings.get(name)
    }

    pub fn is_builtin(&self, expr: &Expr, builtin: &str) -> bool {
        matches!(expr, Expr::Name(name) if name.id.as_str() == builtin && self.lookup(builtin).is_none())
    }

    fn sym_of_name(&self, name: &str) -> Option<Sym> {
        match self.lookup(name)? {
            Binding::Import(target) => Some(Sym::Dotted(target.clone())),
            Binding::Def(qual) | Binding::Class(qual) => Some(Sym::Local(qual.clone())),
            Binding::Predicate(_) => Some(Sym::Local(name.to_owned())),
            Binding::Other => None,
        }
    }

    /// Resolves a name or attribute chain as far as this file can.
    pub fn resolve(&self, expr: &Expr) -> Option<Sym> {
        let mut attrs: Vec<&str> = Vec::new();
        let mut current = expr;
        loop {
            match current {
                Expr::Attribute(attribute) => {
                    attrs.push(attribute.attr.id.as_str());
                    current = &attribute.value;
                }
                Expr::Name(name) => {
                    attrs.reverse();
                    if let Some((self_name, class)) = self.method_context()
                        && name.id.as_str() == self_name
                        && !attrs.is_empty()
                    {
                        return Some(Sym::SelfAttr {
                            class: class.to_owned(),
                            attr: attrs.join("."),
                        });
                    }
                    return match self.sym_of_name(name.id.as_str())? {
                        Sym::Dotted(base) => Some(Sym::Dotted(join_dotted(&base, &attrs))),
                        Sym::Local(base) => Some(Sym::Local(join_dotted(&base, &attrs))),
                        other => Some(other),
                    };
                }
                Expr::Call(call) if attrs.len() == 1 && self.is_builtin(&call.func, "super") => {
                    let (_, class) = self.method_context()?;
                    return Some(Sym::SuperAttr {
                        class: class.to_owned(),
                        attr: attrs[0].to_owned(),
                    });
                }
                _ => return None,
            }
        }
    }

    /// The fully qualified name of an imported symbol (`torch.stack`), if `expr` is one.
    pub fn qualified(&self, expr: &Expr) -> Option<String> {
        // Fast reject, before any string is built: only a chain rooted in a name bound by an
        // import (or an alias of one) has a qualified name. `self.conv(x)`, locals and local
        // definitions are the common case on this hot path and resolve to nothing here.
        let mut root = expr;
        while let Expr::Attribute(attribute) = root {
            root = &attribute.value;
        }
        let Expr::Name(name) = root else {
            return None;
        };
        if !matches!(self.lookup(name.id.as_str()), Some(Binding::Import(_))) {
            return None;
        }
        match self.resolve(expr)? {
            Sym::Dotted(qualified) => Some(qualified),
            _ => None,
        }
    }

    /// Is `name` a parameter of the current function with a falsy literal default, not
    /// reassigned so far?
    fn is_flag_param(&self, name: &str) -> bool {
        let (Some(frame), Some(func)) = (self.function_frame(), self.current_function()) else {
            return false;
        };
        !frame.values.contains_key(name)
            && self.summary.functions[func as usize]
                .flag_params
                .iter()
                .any(|(flag, _)| flag == name)
    }

    /// Is `name` a parameter of the current function with a `None` default, not reassigned so
    /// far?
    fn is_none_flag_param(&self, name: &str) -> bool {
        self.is_flag_param(name)
            && self.current_function().is_some_and(|func| {
                self.summary.functions[func as usize]
                    .none_flags
                    .iter()
                    .any(|flag| flag == name)
            })
    }

    /// `len(args) <op> <int>` where `args` is the current function's `*args`, not reassigned.
    fn vararg_len_atom(&self, compare: &ast::ExprCompare) -> Option<Atom> {
        let Expr::Call(call) = &*compare.left else {
            return None;
        };
        if !self.is_builtin(&call.func, "len") || call.arguments.len() != 1 {
            return None;
        }
        let Some(Expr::Name(name)) = call.arguments.args.first() else {
            return None;
        };
        let func = self.current_function()?;
        let frame = self.function_frame()?;
        if self.summary.functions[func as usize].vararg.as_deref() != Some(name.id.as_str())
            || frame.values.contains_key(name.id.as_str())
        {
            return None;
        }
        let Some(Expr::NumberLiteral(number)) = compare.comparators.first() else {
            return None;
        };
        let ast::Number::Int(n) = &number.value else {
            return None;
        };
        let compare_op = match compare.ops[0] {
            ast::CmpOp::Eq => LenCompare::Eq,
            ast::CmpOp::NotEq => LenCompare::NotEq,
            ast::CmpOp::Lt => LenCompare::Lt,
            ast::CmpOp::LtE => LenCompare::LtE,
            ast::CmpOp::Gt => LenCompare::Gt,
            ast::CmpOp::GtE => LenCompare::GtE,
            _ => return None,
        };
        Some(Atom::VarargLen(compare_op, u32::from(n.as_u8()?)))
    }

    /// `(name, position)` of a parameter of the current function not reassigned so far (known
    /// only with roots).
    fn unchanged_param(&self, name: &str) -> Option<(String, Option<u32>)> {
        let frame = self.function_frame()?;
        if frame.values.contains_key(name) {
            return None;
        }
        frame
            .param_positions
            .iter()
            .find(|(param, _)| param == name)
            .cloned()
    }

    /// Is `name` the first input parameter of the current function (after `self`), not
    /// reassigned so far?
    fn is_first_input(&self, name: &str) -> bool {
        self.function_frame().is_some_and(|frame| {
            frame.first_input.as_deref() == Some(name) && !frame.values.contains_key(name)
        })
    }

    /// `(self parameter name, class local qualname)` when inside a method.
    pub fn method_context(&self) -> Option<(&str, &str)> {
        for frame in self.frames.iter().rev() {
            if let FrameKind::Function {
                self_name, class, ..
            } = &frame.kind
                && let (Some(self_name), Some(class)) = (self_name, class)
            {
                return Some((self_name, class));
            }
        }
        None
    }

    pub fn current_function(&self) -> Option<FuncIdx> {
        self.frames.iter().rev().find_map(|frame| match frame.kind {
            FrameKind::Function { idx, .. } => Some(idx),
            FrameKind::Class => None,
        })
    }

    pub fn in_function(&self) -> bool {
        self.current_function().is_some()
    }

    fn function_frame_mut(&mut self) -> Option<&mut Frame<'a>> {
        self.frames
            .iter_mut()
            .rev()
            .find(|f| matches!(f.kind, FrameKind::Function { .. }))
    }

    fn function_frame(&self) -> Option<&Frame<'a>> {
        self.frames
            .iter()
            .rev()
            .find(|f| matches!(f.kind, FrameKind::Function { .. }))
    }

    pub fn is_project_dotted(&self, dotted: &str) -> bool {
        let root = dotted.split('.').next().unwrap_or(dotted);
        self.ctx.project_roots.contains(root)
    }

    // ----- guards ---------------------------------------------------------------------------

    pub fn cond_of(&self, expr: &Expr) -> Cond {
        // Locals are followed one hop only (`compiling = is_compiling()`), never into themselves.
        self.cond_of_depth(expr, 0, Follow::Locals)
    }

    fn cond_of_depth(&self, expr: &Expr, depth: u32, follow: Follow) -> Cond {
        if depth > MAX_EXPR_DEPTH {
            return Cond::Unknown;
        }
        // `if child:`, `mode == "avg"`, `if self.merged:` (`model/context_atoms.rs`).
        if let Some(cond) = self.context_atom(expr) {
            return cond;
        }
        match expr {
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => Cond::Not(Box::new(
                self.cond_of_depth(&unary.operand, depth + 1, follow),
            )),
            Expr::BoolOp(boolop) => {
                let items = boolop
                    .values
                    .iter()
                    .map(|v| self.cond_of_depth(v, depth + 1, follow))
                    .collect();
                match boolop.op {
                    ast::BoolOp::And => Cond::And(items),
                    ast::BoolOp::Or => Cond::Or(items),
                }
            }
            Expr::BooleanLiteral(literal) => Cond::Const(literal.value),
            // `bool(x)` reads `x`'s truth.
            Expr::Call(call)
                if call.arguments.keywords.is_empty()
                    && let [arg] = &*call.arguments.args
                    && self.is_builtin(&call.func, "bool") =>
            {
                self.cond_of_depth(arg, depth + 1, follow)
            }
            Expr::Call(call) => self.cond_of_call(call),
            // `p() if p is not None else torch._dynamo.is_compiling()`: known when both sides agree.
            Expr::If(if_expr) => {
                // `bool(_f()) if _f is not None else False`: a test the evaluator decides picks
                // its side (`model/eval.rs`).
                match self.eval_value(&if_expr.test).truth() {
                    Cond::Const(true) => {
                        return self.cond_of_depth(&if_expr.body, depth + 1, follow);
                    }
                    Cond::Const(false) => {
                        return self.cond_of_depth(&if_expr.orelse, depth + 1, follow);
                    }
                    _ => {}
                }
                let body = self.cond_of_depth(&if_expr.body, depth + 1, follow);
                let orelse = self.cond_of_depth(&if_expr.orelse, depth + 1, follow);
                if body == orelse {
                    body
                } else {
                    Cond::Choice(Box::new(body), Box::new(orelse))
                }
            }
            // `if profile:` on a `profile=False` parameter not reassigned so far.
            Expr::Name(name) if self.is_flag_param(name.id.as_str()) => {
                Cond::Atom(Atom::FlagParam(name.id.to_string()))
            }
            // `len(caches) == 1` on the function's own `*caches`.
            Expr::Compare(compare)
                if compare.ops.len() == 1
                    && let Some(atom) = self.vararg_len_atom(compare) =>
            {
                Cond::Atom(atom)
            }
            // `if cache_data is not None:` / `is None` on a `cache_data=None` parameter: the same
            // atom (False at the default) or its negation.
            Expr::Compare(compare)
                if compare.ops.len() == 1
                    && matches!(compare.ops[0], ast::CmpOp::Is | ast::CmpOp::IsNot)
                    && matches!(compare.comparators.first(), Some(Expr::NoneLiteral(_)))
                    && matches!(&*compare.left, Expr::Name(name) if self.is_none_flag_param(name.id.as_str())) =>
            {
                let Expr::Name(name) = &*compare.left else {
                    return Cond::Unknown;
                };
                let atom = Cond::Atom(Atom::FlagParam(name.id.to_string()));
                if matches!(compare.ops[0], ast::CmpOp::IsNot) {
                    atom
                } else {
                    Cond::Not(Box::new(atom))
                }
            }
            // `compiling = is_compiling()` … `if compiling:`
            Expr::Name(name) if follow == Follow::Locals => {
                match self.local_value(name.id.as_str()) {
                    Some(value) if !matches!(value, Expr::Name(_)) => {
                        self.cond_of_depth(value, depth + 1, Follow::NotLocals)
                    }
                    _ => Cond::Unknown,
                }
            }
            // `_f is not None` on a global bound to a predicate or `None` (`model/eval.rs`).
            Expr::Compare(_) => self.eval_value(expr).truth(),
            _ => Cond::Unknown,
        }
    }

    fn cond_of_call(&self, call: &ast::ExprCall) -> Cond {
        // `getattr(torch.compiler, "is_compiling", lambda: False)()`
        if let Some(qualified) = self.getattr_target(&call.func) {
            return atom_for_qualified(&qualified).map_or(Cond::Unknown, Cond::Atom);
        }
        if self.is_builtin(&call.func, "isinstance") {
            let container = |kind: &Expr| {
                matches!(kind, Expr::Name(n)
                    if matches!(n.id.as_str(), "dict" | "list" | "tuple" | "str")
                        && self.lookup(n.id.as_str()).is_none())
            };
            if let [Expr::Name(name), kind, ..] = &*call.arguments.args
                && self.is_first_input(name.id.as_str())
                && match kind {
                    Expr::Tuple(kinds) => {
                        !kinds.elts.is_empty() && kinds.elts.iter().all(container)
                    }
                    other => container(other),
                }
            {
                return Cond::Atom(Atom::InputIsContainer);
            }
            if let [Expr::Name(name), kind] = &*call.arguments.args
                && let Some((param, position)) = self.unchanged_param(name.id.as_str())
            {
                // `isinstance(shape, tuple)` / `torch.Size` on a parameter every traced call
                // passes `x.shape` to: True; `isinstance(shape, torch.Tensor)`: False.
                let atom = Cond::Atom(Atom::ParamIsSize(param, position));
                let is = |kind: &Expr, names: &[&str]| match kind {
                    Expr::Name(n) => {
                        names.contains(&n.id.as_str()) && self.lookup(n.id.as_str()).is_none()
                    }
                    other => self
                        .qualified(other)
                        .is_some_and(|q| names.contains(&q.as_str())),
                };
                if is(kind, &["tuple", "torch.Size"]) {
                    return atom;
                }
                if is(kind, &["torch.Tensor"]) {
                    return Cond::Not(Box::new(atom));
                }
            }
            return Cond::Unknown;
        }
        if self.is_builtin(&call.func, "hasattr") {
            if let [object, Expr::StringLiteral(attr), ..] = &*call.arguments.args
                && let Some(base) = self.qualified(object)
            {
                return Cond::Atom(Atom::Probe(format!("{base}.{}", attr.value.to_str())));
            }
            return Cond::Unknown;
        }
        if let Expr::Name(name) = &*call.func {
            if let Some(Binding::Predicate(cond)) = self.lookup(name.id.as_str()) {
                return cond.clone();
            }
            // `p = getattr(torch.compiler, "is_compiling", None)` … `p()`
            if let Some(value) = self.local_value(name.id.as_str())
                && let Some(cond) = self.predicate_reference(value)
            {
                return cond;
            }
        }
        match self.resolve(&call.func) {
            Some(Sym::Dotted(qualified)) => {
                if let Some(atom) = atom_for_qualified(&qualified) {
                    Cond::Atom(atom)
                } else if self.is_project_dotted(&qualified) {
                    Cond::Atom(Atom::Call(Sym::Dotted(qualified)))
                } else {
                    Cond::Unknown
                }
            }
            Some(sym) => Cond::Atom(Atom::Call(sym)),
            None => Cond::Unknown,
        }
    }

    fn add_guard(&mut self, test: &Expr) -> Option<GuardIdx> {
        let cond = self.cond_of(test);
        if !cond.is_interesting() {
            return None;
        }
        if let Some(func) = self.current_function() {
            cond.for_each_size_param(&mut |name, position| {
                let checked = &mut self.summary.functions[func as usize].size_checked_params;
                if !checked.iter().any(|(n, _)| n == name) {
                    checked.push((name.to_owned(), position));
                }
            });
            self.note_context_atoms(func, &cond);
        }
        let idx = self.summary.guards.len() as GuardIdx;
        let location = self.location(test.range().start().into());
        let end_location = self.location(test.range().end().into());
        self.summary.guards.push(Guard {
            cond,
            func: self.current_function(),
            location,
            end_location,
        });
        Some(idx)
    }

    /// The current guard path and probes, to restore with [`SemanticModel::restore`].
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            path: self.path.len(),
            probes: self.probes.len(),
        }
    }

    pub(crate) fn restore(&mut self, mark: Mark) {
        self.path.truncate(mark.path);
        self.probes.truncate(mark.probes);
    }

    /// Records `test` as a guard (when it mentions something we understand) and enters its
    /// `branch`; returns the guard so a caller can switch to the other branch.
    pub(crate) fn enter_guard(&mut self, test: &Expr, branch: Branch) -> Option<GuardIdx> {
        let guard = self.add_guard(test);
        if let Some(g) = guard {
            self.path.push(PathStep::Guard(g, branch));
        }
        guard
    }

    pub(crate) fn push_step(&mut self, step: PathStep) {
        self.path.push(step);
    }

    pub(crate) fn pop_step(&mut self) {
        self.path.pop();
    }

    /// The steps (guards taken, exception-only entry) that lead to the code being visited.
    pub fn path(&self) -> &[PathStep] {
        &self.path
    }

    /// Is `qualified` probed (`hasattr`/`getattr`) by a guard or `and`-chain around this code?
    pub fn is_probed(&self, qualified: &str) -> bool {
        self.probes.iter().any(|p| p == qualified)
            || self.path.iter().any(|step| match step {
                PathStep::Guard(g, _) => self.summary.guards[*g as usize]
                    .cond
                    .mentions_probe(qualified),
                PathStep::AfterException | PathStep::FailureOnly | PathStep::MisuseOnly => false,
            })
    }

    pub(crate) fn push_probes(&mut self, test: &Expr) {
        fn collect(cond: &Cond, out: &mut Vec<String>) {
            match cond {
                Cond::Atom(Atom::Probe(name)) => out.push(name.clone()),
                Cond::And(items) => items.iter().for_each(|c| collect(c, out)),
                _ => {}
            }
        }
        let cond = self.cond_of(test);
        collect(&cond, &mut self.probes);
    }

    // ----- emitting findings ----------------------------------------------------------------

    pub fn location(&self, offset: u32) -> Location {
        self.lines.location(self.source, offset)
    }

    pub fn edit(&self, range: TextRange, content: impl Into<String>) -> Edit {
        Edit {
            start: range.start().into(),
            end: range.end().into(),
            content: content.into(),
            location: self.location(range.start().into()),
            end_location: self.location(range.end().into()),
        }
    }

    // ----- definitions ----------------------------------------------------------------------

    /// Records a `def` (its decorators already visited) and enters its frame.
    pub(crate) fn enter_function(&mut self, def: &'a ast::StmtFunctionDef) -> FunctionScope {
        let mut compile_decorated = false;
        let mut disabled = false;
        let mut disabled_frame_only = false;
        for decorator in &def.decorator_list {
            let target = match &decorator.expression {
                Expr::Call(call) => &*call.func,
                other => other,
            };
            match self.qualified(target).as_deref() {
                Some("torch.compile") => compile_decorated = true,
                Some("torch.compiler.disable" | "torch._dynamo.disable") => {
                    let recursive = match &decorator.expression {
                        Expr::Call(call) => {
                            call.arguments.find_keyword("recursive").map(|k| &k.value)
                        }
                        _ => None,
                    };
                    if matches!(recursive, Some(Expr::BooleanLiteral(b)) if !b.value) {
                        disabled_frame_only = true;
                    } else {
                        disabled = true;
                    }
                }
                _ => {}
            }
        }

        let name = def.name.id.to_string();
        let (qual, class) = match self.frames.last() {
            Some(frame) => {
                let class = matches!(frame.kind, FrameKind::Class).then(|| frame.qual.clone());
                (format!("{}.{name}", frame.qual), class)
            }
            None => (name.clone(), None),
        };
        let idx = self.summary.functions.len() as FuncIdx;
        self.summary.functions.push(FunctionInfo {
            name: name.clone(),
            class: class.clone(),
            compile_decorated,
            memoized: self.is_memoized(def),
            line: self.location(def.range.start().into()).row,
            end_line: 0,
            disabled,
            disabled_frame_only,
            calls: Vec::new(),
            outside_writes: Vec::new(),
            is_property: def.decorator_list.iter().any(|d| {
                matches!(&d.expression, Expr::Name(n) if matches!(n.id.as_str(), "property" | "cached_property"))
                    || matches!(&d.expression, Expr::Attribute(a) if a.attr.id.as_str() == "cached_property")
            }),
            returned_callables: Vec::new(),
            predicate: None,
            flag_params: Vec::new(),
            none_flags: Vec::new(),
            size_checked_params: Vec::new(),
            const_params: Vec::new(),
            param_defaults: Vec::new(),
            tests_self_attrs: false,
            self_writes: Vec::new(),
            replaces_forward: self.frames.is_empty()
                && dispatch::replaces_forward_with_dispatcher(def),
            fixed_positional: 0,
            vararg: def
                .parameters
                .vararg
                .as_ref()
                .filter(|_| self.ctx.roots_configured)
                .map(|p| p.name.id.to_string()),
            kwarg: def
                .parameters
                .kwarg
                .as_ref()
                .filter(|_| self.ctx.roots_configured)
                .map(|p| p.name.id.to_string()),
            index_params: Vec::new(),
            host_index_returns: Vec::new(),
        });
        // `@name.setter` / `@name.deleter` reuse the property's name: `self.name` still reads
        // (and Dynamo traces) the getter, so the getter keeps the name.
        let accessor = def.decorator_list.iter().any(|d| {
            matches!(&d.expression, Expr::Attribute(a) if matches!(a.attr.id.as_str(), "setter" | "deleter"))
        });
        if !accessor || !self.summary.function_by_name.contains_key(&qual) {
            self.summary.function_by_name.insert(qual.clone(), idx);
        }
        if let Some(frame) = self.function_frame_mut() {
            frame.bindings.insert(name, Binding::Def(qual.clone()));
        }

        let mut locals = FxMap::default();
        let mut self_name = None;
        let mut first_input = None;
        let params = &def.parameters;
        let has_self = class.is_some() && !self.is_static(def);
        self.flow_enter_function(idx, def, has_self, class.as_deref());
        let all_positions: Vec<(String, Option<u32>)> = params
            .posonlyargs
            .iter()
            .chain(params.args.iter())
            .skip(usize::from(has_self))
            .enumerate()
            .map(|(position, p)| (p.parameter.name.id.to_string(), Some(position as u32)))
            .chain(
                params
                    .kwonlyargs
                    .iter()
                    .map(|p| (p.parameter.name.id.to_string(), None)),
            )
            .collect();
        let param_names: Vec<String> = all_positions.iter().map(|(n, _)| n.clone()).collect();
        let param_positions = if self.ctx.roots_configured {
            all_positions.clone()
        } else {
            Vec::new()
        };
        self.summary.functions[idx as usize].index_params = all_positions;
        let comment_kinds = self.type_comment_kinds(def, has_self);
        for (position, param) in params
            .posonlyargs
            .iter()
            .chain(params.args.iter())
            .enumerate()
        {
            let param_name = param.parameter.name.id.to_string();
            if position == 0 && has_self {
                self_name = Some(param_name);
                continue;
            }
            let from_comment = comment_kinds
                .as_ref()
                .and_then(|kinds| kinds.get(position - usize::from(has_self)).copied());
            let kind = param
                .parameter
                .annotation
                .as_deref()
                .map(|ann| self.annotation_kind(ann))
                .or(from_comment)
                .unwrap_or(TensorKind::Unknown);
            if position == usize::from(self_name.is_some()) {
                // The input: unannotated or annotated as a tensor (a `Union[Tensor, Dict]`
                // annotation says the dict path is real).
                let plain = param.parameter.annotation.is_none() || kind == TensorKind::Tensor;
                first_input = plain.then(|| param_name.clone());
            }
            locals.insert(param_name, kind);
        }
        for param in &params.kwonlyargs {
            let kind = param
                .parameter
                .annotation
                .as_deref()
                .map_or(TensorKind::Unknown, |ann| self.annotation_kind(ann));
            locals.insert(param.parameter.name.id.to_string(), kind);
        }
        for variadic in params.vararg.iter().chain(params.kwarg.iter()) {
            locals.insert(variadic.name.id.to_string(), TensorKind::NotTensor);
        }
        let offset = usize::from(self_name.is_some());
        let none_flags: Vec<String> = if !self.ctx.roots_configured {
            Vec::new()
        } else {
            params
                .iter_non_variadic_params()
                .filter(|param| matches!(param.default.as_deref(), Some(Expr::NoneLiteral(_))))
                .map(|param| param.parameter.name.id.to_string())
                .collect()
        };
        self.summary.functions[idx as usize].none_flags = none_flags;
        self.summary.functions[idx as usize].fixed_positional =
            (params.posonlyargs.len() + params.args.len() - usize::from(self_name.is_some()))
                as u32;
        let flag_params: Vec<(String, Option<u32>)> = if !self.ctx.roots_configured {
            Vec::new()
        } else {
            params
                .posonlyargs
                .iter()
                .chain(params.args.iter())
                .enumerate()
                .skip(offset)
                .map(|(position, param)| (param, Some((position - offset) as u32)))
                .chain(params.kwonlyargs.iter().map(|param| (param, None)))
                .filter(|(param, _)| {
                    matches!(
                        param.default.as_deref(),
                        Some(Expr::BooleanLiteral(b)) if !b.value
                    ) || matches!(param.default.as_deref(), Some(Expr::NoneLiteral(_)))
                        || matches!(param.default.as_deref(), Some(Expr::NumberLiteral(n))
                        if matches!(&n.value, ast::Number::Int(i) if i.as_u8() == Some(0)))
                })
                .map(|(param, position)| (param.parameter.name.id.to_string(), position))
                .collect()
        };
        self.summary.functions[idx as usize].flag_params = flag_params;
        // Literal defaults, for the constants of caller context (`context.rs`).
        if self.ctx.roots_configured {
            self.summary.functions[idx as usize].param_defaults = params
                .iter_non_variadic_params()
                .filter_map(|param| {
                    let default = ConstValue::of(param.default.as_deref()?)?;
                    Some((param.parameter.name.id.to_string(), default))
                })
                .collect();
        }

        let param_classes = self.project_param_classes(def);
        self.frames.push(Frame {
            qual,
            kind: FrameKind::Function {
                idx,
                self_name,
                class,
            },
            bindings: FxMap::default(),
            locals,
            facts: LocalFacts::default(),
            values: FxMap::default(),
            param_classes,
            first_input,
            param_positions,
            param_names,
        });
        let version_asserts = self.version_asserts.len();
        let asserted = self.top_level_version_asserts(&def.body);
        self.version_asserts.extend(asserted);
        let scope = FunctionScope {
            idx,
            version_asserts,
            path: std::mem::take(&mut self.path),
            feature_probe_depth: std::mem::replace(&mut self.feature_probe_depth, 0),
            import_probe_depth: std::mem::replace(&mut self.import_probe_depth, 0),
            loop_depth: std::mem::replace(&mut self.loop_depth, 0),
            index_bindings: self.index_loops.borrow().len(),
        };
        self.collect_nested_defs(&def.body);
        self.collect_compile_gates(def);
        scope
    }

    /// Leaves the frame [`SemanticModel::enter_function`] entered, once its body was visited.
    pub(crate) fn leave_function(&mut self, scope: FunctionScope, def: &'a ast::StmtFunctionDef) {
        self.path = scope.path;
        self.feature_probe_depth = scope.feature_probe_depth;
        self.import_probe_depth = scope.import_probe_depth;
        self.loop_depth = scope.loop_depth;
        self.index_loops.borrow_mut().truncate(scope.index_bindings);
        self.version_asserts.truncate(scope.version_asserts);
        let predicate = self.predicate_of_body(&def.body);
        let end_line = self.location(def.range.end().into()).row;
        let info = &mut self.summary.functions[scope.idx as usize];
        info.predicate = predicate;
        info.end_line = end_line;
        self.frames.pop();
    }

    fn is_static(&self, def: &ast::StmtFunctionDef) -> bool {
        def.decorator_list
            .iter()
            .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod"))
    }

    /// Nested `def`s are callable anywhere in the enclosing body, including before their line.
    fn collect_nested_defs(&mut self, body: &'a [Stmt]) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        for stmt in body {
            if let Stmt::FunctionDef(def) = stmt {
                let name = def.name.id.to_string();
                let qual = format!("{}.{name}", frame.qual);
                frame.bindings.insert(name, Binding::Def(qual));
            }
        }
    }

    fn annotation_kind(&self, annotation: &Expr) -> TensorKind {
        let text = match annotation {
            Expr::StringLiteral(literal) => literal.value.to_str().to_owned(),
            _ => match self.resolve(annotation) {
                Some(Sym::Dotted(qualified)) => qualified,
                _ => match annotation {
                    Expr::Name(name) => name.id.to_string(),
                    _ => return TensorKind::Unknown,
                },
            },
        };
        if TORCH.tensor_annotations.contains(text.as_str()) {
            TensorKind::Tensor
        } else if TORCH.host_annotations.contains(text.as_str()) {
            TensorKind::NotTensor
        } else {
            TensorKind::Unknown
        }
    }

    /// A function whose every `return` yields a guard formula is a predicate (`_is_compiling()`).
    fn predicate_of_body(&self, body: &[Stmt]) -> Option<Cond> {
        let mut returns = Vec::new();
        collect_returns(body, &mut returns, 0);
        if returns.is_empty() {
            return None;
        }
        let mut conds = Vec::with_capacity(returns.len());
        for value in returns {
            let cond = match value {
                Some(expr) => self.cond_of(expr),
                None => Cond::Const(false),
            };
            if matches!(cond, Cond::Unknown) {
                return None;
            }
            conds.push(cond);
        }
        if !conds.iter().any(Cond::is_interesting) {
            return None;
        }
        Some(if conds.len() == 1 {
            conds.pop().unwrap()
        } else {
            Cond::Or(conds)
        })
    }

    /// Records a class (decorators and bases already visited) and enters its frame.
    pub(crate) fn enter_class(&mut self, class: &'a ast::StmtClassDef) {
        let mut bases = Vec::new();
        if let Some(arguments) = &class.arguments {
            for base in arguments.args.iter() {
                if let Some(sym) = self.resolve(base) {
                    bases.push(sym);
                } else if !self.summary.flow.star_imports.is_empty()
                    && let Some(text) = dotted_text(base)
                {
                    // Bound only by `from m import *`: resolved when linking.
                    bases.push(Sym::Local(text));
                }
            }
        }
        let name = class.name.id.to_string();
        let qual = match self.frames.last() {
            Some(frame) => format!("{}.{name}", frame.qual),
            None => name.clone(),
        };
        let decorators = class
            .decorator_list
            .iter()
            .filter_map(|decorator| {
                let called = match &decorator.expression {
                    Expr::Call(call) => &*call.func,
                    other => other,
                };
                self.resolve(called)
            })
            .collect();
        let idx = self.summary.classes.len() as u32;
        let fields = self.class_field_defaults(class);
        self.summary.classes.push(ClassInfo {
            qualname: qual.clone(),
            bases,
            decorators,
            fields,
        });
        self.summary.class_by_name.insert(qual.clone(), idx);
        if let Some(frame) = self.function_frame_mut() {
            frame.bindings.insert(name, Binding::Class(qual.clone()));
        }
        self.frames.push(Frame {
            qual,
            kind: FrameKind::Class,
            bindings: FxMap::default(),
            locals: FxMap::default(),
            facts: LocalFacts::default(),
            values: FxMap::default(),
            param_classes: FxMap::default(),
            first_input: None,
            param_positions: Vec::new(),
            param_names: Vec::new(),
        });
    }

    pub(crate) fn leave_class(&mut self) {
        self.frames.pop();
    }

    // ----- statements -----------------------------------------------------------------------

    /// Local facts of `targets = value` (tensor-ness, host-built, shape lists, the value).
    pub(crate) fn bind_assignment(&mut self, targets: &[&'a Expr], value: &'a Expr) {
        // Module and class bodies keep no local facts: skip the work there.
        if !self.in_function() {
            return;
        }
        // Unpacking (`rows, cols = linear_sum_assignment(c)`) binds each name to an element;
        // a plain rebinding of such a name shadows it (`model/host_index.rs`).
        for target in targets {
            match target {
                Expr::Tuple(ast::ExprTuple { elts: names, .. })
                | Expr::List(ast::ExprList { elts: names, .. }) => {
                    // `r, counts = order[ub], n.tolist()` pairs the names with the values.
                    let paired = match value {
                        Expr::Tuple(ast::ExprTuple { elts: values, .. })
                        | Expr::List(ast::ExprList { elts: values, .. })
                            if values.len() == names.len() =>
                        {
                            Some(values)
                        }
                        _ => None,
                    };
                    let bound = match paired {
                        Some(values) => names
                            .iter()
                            .zip(values.iter())
                            .filter_map(|(name, value)| match name {
                                Expr::Name(name) => {
                                    Some((name.id.to_string(), self.host_index_deps(value)))
                                }
                                _ => None,
                            })
                            .collect(),
                        None => self.loop_target_deps(target, value),
                    };
                    self.index_loops.borrow_mut().extend(bound);
                }
                Expr::Name(name) => {
                    let id = name.id.as_str();
                    if self.index_loops.borrow().iter().any(|(n, _)| n == id) {
                        let deps = self.host_index_deps(value);
                        self.index_loops.borrow_mut().push((id.to_owned(), deps));
                    }
                }
                _ => {}
            }
        }
        // The value analyses below only feed plain-name targets: `self.x = ...` and
        // `a[i] = ...` skip them (tuple targets only forget their names).
        if !targets.iter().any(|target| matches!(target, Expr::Name(_))) {
            if let Some(frame) = self.function_frame_mut() {
                for target in targets {
                    if let Expr::Tuple(tuple) = target {
                        for element in &tuple.elts {
                            if let Expr::Name(name) = element {
                                frame.bindings.remove(name.id.as_str());
                                frame
                                    .locals
                                    .insert(name.id.to_string(), TensorKind::Unknown);
                            }
                        }
                    }
                }
            }
            return;
        }
        let kind = self.tensor_kind(value);
        let host_built = self.is_host_built(value);
        let numpy = self.is_numpy_value(value);
        let on_host = self.is_on_host_given(value, host_built, numpy);
        let shape_list = self.is_shape_tensor_sequence(value);
        let Some(frame) = self.function_frame_mut() else {
            return;
        };
        for target in targets {
            match target {
                Expr::Name(name) => {
                    let facts = &mut frame.facts;
                    let key = name.id.as_str();
                    set_membership(&mut facts.host_built, key, host_built);
                    set_membership(&mut facts.on_host, key, on_host);
                    set_membership(&mut facts.numpy_values, key, numpy);
                    set_membership(&mut facts.shape_lists, key, shape_list);
                    set_membership(&mut facts.not_tensors, key, kind == TensorKind::NotTensor);
                    let name = name.id.to_string();
                    if !frame.bindings.is_empty() {
                        frame.bindings.remove(&name);
                    }
                    frame.values.insert(name.clone(), value);
                    frame.locals.insert(name, kind);
                }
                Expr::Tuple(tuple) => {
                    for element in &tuple.elts {
                        if let Expr::Name(name) = element {
                            frame.bindings.remove(name.id.as_str());
                            frame
                                .locals
                                .insert(name.id.to_string(), TensorKind::Unknown);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `import a.b` / `import a.b as c` inside a function binds locally.
    pub(crate) fn bind_import(&mut self, import: &ast::StmtImport) {
        if !self.in_function() {
            return;
        }
        let bindings = import_bindings(import);
        if let Some(frame) = self.function_frame_mut() {
            for (name, target) in bindings {
                frame.bindings.insert(name, Binding::Import(target));
            }
        }
    }

    /// `from a import b` inside a function binds locally.
    pub(crate) fn bind_import_from(&mut self, import: &ast::StmtImportFrom) {
        if !self.in_function() {
            return;
        }
        let bindings = self.import_from_bindings(import);
        if let Some(frame) = self.function_frame_mut() {
            for (name, target) in bindings {
                frame.bindings.insert(name, Binding::Import(target));
            }
        }
    }

    /// What the handlers of this `try` catch.
    pub(crate) fn try_handlers(stmt_try: &ast::StmtTry) -> TryHandlers {
        TryHandlers {
            probe_errors: stmt_try.handlers.iter().any(handler_catches_probe_errors),
            import_failure: stmt_try.handlers.iter().any(catches_import_failure),
        }
    }

    pub(crate) fn enter_try_body(&mut self, handlers: TryHandlers) {
        self.feature_probe_depth += u32::from(handlers.probe_errors);
        self.import_probe_depth += u32::from(handlers.import_failure);
    }

    pub(crate) fn leave_try_body(&mut self, handlers: TryHandlers) {
        self.feature_probe_depth -= u32::from(handlers.probe_errors);
        self.import_probe_depth -= u32::from(handlers.import_failure);
    }

    /// Inside a `try:` whose handlers catch ImportError/AttributeError (a feature probe)?
    pub fn in_feature_probe(&self) -> bool {
        self.feature_probe_depth > 0
    }

    pub(crate) fn enter_loop(&mut self) {
        self.loop_depth += 1;
    }

    pub(crate) fn leave_loop(&mut self) {
        self.loop_depth -= 1;
    }

    /// Inside a `for` / `while` loop of the current function?
    pub fn in_loop(&self) -> bool {
        self.loop_depth > 0
    }

    /// Inside a `for`/`while` body or a comprehension's element: code that runs once per
    /// iteration.
    pub fn iterates(&self) -> bool {
        self.loop_depth > 0 || self.iteration_depth.get() > 0
    }

    /// The source text of `range` (messages quote short expressions).
    pub fn text(&self, range: TextRange) -> &'a str {
        self.source.get(range.to_std_range()).unwrap_or_default()
    }

    /// Does the block end on a failure: `raise`, or `torch._assert(False, ...)`?
    pub(crate) fn ends_in_failure(&self, body: &[Stmt]) -> bool {
        match body.last() {
            Some(Stmt::Raise(_)) => true,
            Some(Stmt::Expr(expr)) => match &*expr.value {
                Expr::Call(call) => {
                    matches!(call.arguments.args.first(), Some(Expr::BooleanLiteral(b)) if !b.value)
                        && matches!(
                            self.qualified(&call.func).as_deref(),
                            Some("torch._assert" | "torch._check")
                        )
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Inside a `try:` whose handlers catch ImportError (an availability probe)?
    pub fn in_import_probe(&self) -> bool {
        self.import_probe_depth > 0
    }

    /// The guard of the `if` statement just visited, remembered for the early-return rule.
    pub(crate) fn set_last_if_guard(&mut self, guard: Option<GuardIdx>, stmt_if: &ast::StmtIf) {
        self.last_if_guard = guard;
        if let Some(g) = guard {
            self.if_guards.insert(stmt_if.range.start(), g);
        }
    }

    pub(crate) fn clear_last_if_guard(&mut self) {
        self.last_if_guard = None;
    }

    /// After a statement of a body: `if is_compiling(): return fast` means what follows runs only
    /// when the test was False (also when that `if` sits in a `with` or `try` body); after a
    /// `try:` whose body always returns, what follows runs only after an exception.
    pub(crate) fn after_statement(&mut self, stmt: &Stmt) {
        if let Stmt::Try(stmt_try) = stmt
            && always_returns(&stmt_try.body)
            && stmt_try.finalbody.is_empty()
        {
            self.path.push(PathStep::AfterException);
        }
        if let Stmt::If(stmt_if) = stmt
            && stmt_if.elif_else_clauses.is_empty()
            && block_terminates(&stmt_if.body)
            && let Some(g) = self.last_if_guard
        {
            self.path.push(PathStep::Guard(g, Branch::WhenFalse));
        }
        let nested: &[Stmt] = match stmt {
            Stmt::With(with) => &with.body,
            Stmt::Try(stmt_try) => &stmt_try.body,
            _ => &[],
        };
        for inner in nested {
            if let Stmt::If(stmt_if) = inner
                && stmt_if.elif_else_clauses.is_empty()
                && matches!(stmt_if.body.last(), Some(Stmt::Return(_) | Stmt::Raise(_)))
                && let Some(&g) = self.if_guards.get(&stmt_if.range.start())
            {
                self.path.push(PathStep::Guard(g, Branch::WhenFalse));
            }
        }
    }

    /// `self.attr = <int>` in a method: the attribute holds a Python int; `self.attr = Cls(...)`:
    /// it holds an instance of what `Cls` names (so `torch.compile(self.attr)` resolves).
    pub(crate) fn note_self_assignment(&mut self, target: &Expr, value: &Expr) {
        let Some((class, attr)) = self.self_attribute(target) else {
            return;
        };
        // `self.matcher = matcher`: a module (or callable) the caller injects, class unseen here.
        if let Expr::Name(name) = value
            && self.function_frame().is_some_and(|frame| {
                frame.param_names.iter().any(|p| p == name.id.as_str())
                    && !frame.values.contains_key(name.id.as_str())
            })
        {
            self.injected_attrs.insert((class.clone(), attr.clone()));
        }
        // `self.config = config` where the parameter is annotated with a project class.
        if let Expr::Name(name) = value
            && let Some(class_sym) = self
                .function_frame()
                .and_then(|frame| frame.param_classes.get(name.id.as_str()))
        {
            let class_sym = class_sym.clone();
            self.summary
                .self_attr_types
                .entry(class)
                .or_default()
                .insert(attr, class_sym);
            return;
        }
        if let Expr::Dict(dict) = value {
            let callees = self.dispatch_callees(dict);
            if !callees.is_empty() {
                self.self_dicts.insert((class, attr), callees);
            }
            return;
        }
        if let Expr::Call(call) = value
            && let Some(sym) = self.resolve(&call.func)
        {
            self.summary
                .self_attr_types
                .entry(class)
                .or_default()
                .insert(attr, sym);
            return;
        }
        // Only ints: on torch 2.11 a float attribute becomes dynamic after one recompile
        // (measured: 2 graphs for 12 calls), while an int recompiles on every call.
        if let Expr::NumberLiteral(number) = value
            && matches!(number.value, ast::Number::Int(_))
        {
            self.int_attributes.entry(class).or_default().insert(attr);
        }
    }

    /// `(class, attr)` when `target` is `self.attr` inside a method of `class`.
    pub fn self_attribute(&self, target: &Expr) -> Option<(String, String)> {
        let Expr::Attribute(attribute) = target else {
            return None;
        };
        let Expr::Name(base) = &*attribute.value else {
            return None;
        };
        let (self_name, class) = self.method_context()?;
        (base.id.as_str() == self_name).then(|| (class.to_owned(), attribute.attr.id.to_string()))
    }

    /// What `self.attr = Cls(...)` in a method of `class` built, as far as the walk has seen.
    pub fn self_attribute_type(&self, class: &str, attr: &str) -> Option<&Sym> {
        self.summary.self_attr_types.get(class)?.get(attr)
    }

    /// Does some method of `class` set `self.attr` to a Python int? (Complete once the file is walked.)
    pub fn is_int_attribute(&self, class: &str, attr: &str) -> bool {
        self.int_attributes
            .get(class)
            .is_some_and(|attrs| attrs.contains(attr))
    }

    /// Call-graph edges and `torch.compile(x)` / `x.compile()` targets.
    pub(crate) fn record_call(&mut self, call: &'a ast::ExprCall, callee: Option<&Sym>) {
        let func = self.current_function();
        if self.ctx.type_flow {
            self.flow_call(call, 0);
        }
        if let Some(Sym::Dotted(qualified)) = callee
            && qualified == "torch.compile"
        {
            if let Some(target) = call.arguments.args.first() {
                self.note_flow_compile_target(target, false);
            }
            if let Some(target) = call.arguments.args.first()
                && let Some(sym) = self.instance_sym(target)
            {
                self.summary.compile_roots.push(CompileTarget {
                    sym,
                    form: CompileForm::TorchCompile,
                });
            }
            return;
        }
        if let Expr::Attribute(attribute) = &*call.func
            && attribute.attr.id.as_str() == "compile"
            && call.arguments.args.is_empty()
        {
            self.note_flow_compile_target(&attribute.value, true);
            if let Some(sym) = self.instance_sym(&attribute.value) {
                self.summary.compile_roots.push(CompileTarget {
                    sym,
                    form: CompileForm::ModuleMethod,
                });
            }
        }
        let Some(func) = func else { return };
        self.note_outside_mutation(call);
        if let Some(Sym::Dotted(qualified)) = callee
            && qualified == "torch.utils.checkpoint.checkpoint"
            && let Some(body) = call.arguments.args.first()
            && let Some(target @ (Sym::Local(_) | Sym::SelfAttr { .. } | Sym::Dotted(_))) =
                self.resolve(body)
        {
            // Dynamo traces the checkpointed function as the body of a higher-order op: it is
            // part of the region like a direct call.
            self.summary.checkpoint_sites.push(CallSite {
                func,
                callee: target.clone(),
                location: self.location(call.start().into()),
                end_location: self.location(call.end().into()),
                path: self.path().to_vec(),
            });
            let edge = self.call_edge(target, call);
            self.summary.functions[func as usize].calls.push(edge);
            return;
        }
        if let Some(Sym::Dotted(qualified)) = callee
            && let Some(positions) = super::data::hop_body_positions(qualified)
        {
            // `torch.cond(pred, true_fn, false_fn, ops)`: Dynamo traces each branch as the body
            // of a higher-order op, so a branch is called from here like a direct call.
            for &position in positions {
                if let Some(body) = call.arguments.args.get(position)
                    && let Some(target @ (Sym::Local(_) | Sym::SelfAttr { .. } | Sym::Dotted(_))) =
                        self.resolve(body)
                {
                    let edge = self.call_edge(target, call);
                    self.summary.functions[func as usize].calls.push(edge);
                }
            }
            return;
        }
        if callee.is_none()
            && let Expr::Subscript(subscript) = &*call.func
        {
            // `HANDLERS[kind](x)` / `self.losses[name](pred)`: any value of the dict may run.
            for sym in self.dispatch_call(&subscript.value) {
                let edge = self.call_edge(sym, call);
                self.summary.functions[func as usize].calls.push(edge);
            }
            return;
        }
        let edge = match callee {
            Some(Sym::Dotted(qualified)) if self.is_project_dotted(qualified) => {
                Sym::Dotted(qualified.clone())
            }
            None => match self.instance_call(call) {
                Some(edge) => edge,
                None => return,
            },
            Some(Sym::Dotted(_)) => return,
            Some(sym) => sym.clone(),
        };
        let site_call = self.summary.functions[func as usize].calls.len() as u32;
        let site = ProjectCall {
            func,
            call: site_call,
            location: self.location(call.start().into()),
            end_location: self.location(call.end().into()),
        };
        self.summary.call_sites.push(site);
        let edge = self.call_edge(edge, call);
        self.summary.functions[func as usize].calls.push(edge);
        self.note_forwarded_params(func, &call.arguments);
        self.note_gated_call(func, site_call, u32::from(call.start()));
    }

    /// The edge of a call to `sym` at the current path; its arguments are kept only when roots
    /// are configured (flag and argument facts at the root's calls).
    fn call_edge(&self, sym: Sym, call: &ast::ExprCall) -> CallEdge {
        CallEdge {
            sym,
            path: self.path.as_slice().into(),
            row: self.location(call.start().into()).row,
            args: self
                .ctx
                .roots_configured
                .then(|| Box::new(call_args(&call.arguments))),
            host_index_args: self.host_index_args(&call.arguments),
        }
    }

    /// The arguments of a project call that may hold host values (host indices).
    fn host_index_args(&self, arguments: &ast::Arguments) -> Box<[IndexArg]> {
        let mut out = Vec::new();
        for (position, argument) in arguments.args.iter().enumerate() {
            if matches!(argument, Expr::Starred(_)) {
                break;
            }
            let deps = self.host_index_deps(argument);
            if !deps.is_empty() {
                out.push(IndexArg {
                    position: Some(position as u32),
                    keyword: None,
                    deps,
                });
            }
        }
        for keyword in arguments.keywords.iter() {
            let Some(name) = &keyword.arg else { continue };
            let deps = self.host_index_deps(&keyword.value);
            if !deps.is_empty() {
                out.push(IndexArg {
                    position: None,
                    keyword: Some(name.id.to_string()),
                    deps,
                });
            }
        }
        out.into()
    }

    /// Where a `return`ed value may come from the host (`model/host_index.rs`).
    pub(crate) fn note_return_index_deps(&mut self, stmt: &Stmt) {
        let Stmt::Return(ret) = stmt else { return };
        let Some(value) = ret.value.as_deref() else {
            return;
        };
        let Some(func) = self.current_function() else {
            return;
        };
        // A returned list display is a container, not an index: its elements decide.
        let deps = match value {
            Expr::List(list) => {
                let mut deps = Vec::new();
                for element in &list.elts {
                    deps.extend(self.host_index_deps(element));
                }
                deps
            }
            Expr::ListComp(comp) => {
                let mark = self.bind_loop_targets(
                    &comp
                        .generators
                        .iter()
                        .map(|g| (&g.target, &g.iter))
                        .collect::<Vec<_>>(),
                );
                let deps = self.host_index_deps(&comp.elt);
                self.unbind_loop_targets(mark);
                deps
            }
            other => self.host_index_deps(other),
        };
        let returns = &mut self.summary.functions[func as usize].host_index_returns;
        for dep in deps {
            if !returns.contains(&dep) {
                returns.push(dep);
            }
        }
    }

    /// Parameter kinds from a TorchScript-style type comment right below the `def` line
    /// (`# type: (Tensor, int) -> Tensor`, common in torchvision), when the function has no
    /// annotations and the comment names exactly its positional parameters (without `self`).
    fn type_comment_kinds(
        &self,
        def: &ast::StmtFunctionDef,
        has_self: bool,
    ) -> Option<Vec<TensorKind>> {
        let params = &def.parameters;
        let positional: Vec<_> = params
            .posonlyargs
            .iter()
            .chain(params.args.iter())
            .collect();
        if positional.iter().any(|p| p.parameter.annotation.is_some()) || def.returns.is_some() {
            return None;
        }
        let first = def.body.first()?;
        let start = usize::from(params.end());
        let end = usize::from(first.start()).min(self.source.len());
        let between = self.source.get(start..end)?;
        let comment = between
            .lines()
            .map(str::trim)
            .find_map(|line| line.strip_prefix("# type:"))?;
        let inside = comment.trim().strip_prefix('(')?.split_once(") ->")?.0;
        let kinds: Vec<TensorKind> = split_top_level(inside)
            .into_iter()
            .filter(|t| !t.is_empty())
            .map(|t| match t {
                "Tensor" | "torch.Tensor" => TensorKind::Tensor,
                "int" | "float" | "bool" | "str" => TensorKind::NotTensor,
                _ => TensorKind::Unknown,
            })
            .collect();
        (kinds.len() + usize::from(has_self) == positional.len()).then_some(kinds)
    }

    /// Parameters of `def` annotated with a class of this project.
    fn project_param_classes(&self, def: &ast::StmtFunctionDef) -> FxMap<String, Sym> {
        let mut classes = FxMap::default();
        for param in def.parameters.iter_non_variadic_params() {
            let Some(annotation) = param.parameter.annotation.as_deref() else {
                continue;
            };
            match self.annotation_class(annotation) {
                Some(sym @ Sym::Local(_)) => {
                    classes.insert(param.parameter.name.id.to_string(), sym);
                }
                Some(Sym::Dotted(dotted)) if self.is_project_dotted(&dotted) => {
                    classes.insert(param.parameter.name.id.to_string(), Sym::Dotted(dotted));
                }
                _ => {}
            }
        }
        classes
    }

    /// `return DISPATCH[key]` / `return helper`: the project callables a function hands back
    /// (followed when the function is a property that traced code calls).
    pub(crate) fn note_returned_callable(&mut self, stmt: &Stmt) {
        let Stmt::Return(ret) = stmt else { return };
        let Some(value) = ret.value.as_deref() else {
            return;
        };
        self.note_flow_return(value);
        let Some(func) = self.current_function() else {
            return;
        };
        let callees: Vec<Sym> = match value {
            Expr::Subscript(subscript) => match &*subscript.value {
                Expr::Name(name) if self.lookup_is_module_level(name.id.as_str()) => {
                    match self.module_dicts.get(name.id.as_str()) {
                        Some(dict) => self.dispatch_callees(dict),
                        None => match self.resolve(&subscript.value) {
                            Some(Sym::Dotted(dotted)) if self.is_project_dotted(&dotted) => {
                                vec![Sym::DictValues(Box::new(Sym::Dotted(dotted)))]
                            }
                            _ => Vec::new(),
                        },
                    }
                }
                _ => Vec::new(),
            },
            Expr::Name(_) | Expr::Attribute(_) => match self.resolve(value) {
                Some(sym @ Sym::Local(_)) => vec![sym],
                Some(Sym::Dotted(dotted)) if self.is_project_dotted(&dotted) => {
                    vec![Sym::Dotted(dotted)]
                }
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        self.summary.functions[func as usize]
            .returned_callables
            .extend(callees);
    }

    /// The callees of a call through a dispatch dict (module-level or stored on `self`).
    fn dispatch_call(&self, dict: &Expr) -> Vec<Sym> {
        match dict {
            Expr::Name(name) if self.lookup_is_module_level(name.id.as_str()) => self
                .module_dicts
                .get(name.id.as_str())
                .map(|d| self.dispatch_callees(d))
                .unwrap_or_default(),
            Expr::Attribute(_) => self
                .self_attribute(dict)
                .and_then(|key| self.self_dicts.get(&key).cloned())
                .unwrap_or_default(),
            // A local dict of callables (`loss_map = {"labels": self.loss_labels}` then
            // `loss_map[kind](...)`): any value may run, bound methods included.
            Expr::Name(name) => match self.local_value(name.id.as_str()) {
                Some(Expr::Dict(local)) => {
                    let mut callees = self.dispatch_callees(local);
                    callees.extend(local.items.iter().filter_map(|item| match &item.value {
                        value @ Expr::Attribute(_) => match self.resolve(value) {
                            Some(sym @ Sym::SelfAttr { .. }) => Some(sym),
                            _ => None,
                        },
                        _ => None,
                    }));
                    callees
                }
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// What calling each value of a dict literal runs: a project function or class reference, or
    /// `__call__` of an instance built in place (`{"cls": FocalLoss(), ...}`).
    fn dispatch_callees(&self, dict: &ast::ExprDict) -> Vec<Sym> {
        let project = |sym: Sym| match sym {
            Sym::Dotted(ref dotted) if !self.is_project_dotted(dotted) => None,
            Sym::Dotted(_) | Sym::Local(_) => Some(sym),
            _ => None,
        };
        dict.items
            .iter()
            .filter_map(|item| match &item.value {
                value @ (Expr::Name(_) | Expr::Attribute(_)) => {
                    self.resolve(value).and_then(project)
                }
                Expr::Call(call) => {
                    self.resolve(&call.func)
                        .and_then(project)
                        .map(|class| Sym::Instance {
                            class: Box::new(class),
                            method: "__call__".to_owned(),
                        })
                }
                _ => None,
            })
            .collect()
    }

    /// Is `name` not shadowed by a function-level binding or local here?
    fn lookup_is_module_level(&self, name: &str) -> bool {
        self.function_frame().is_none_or(|frame| {
            !frame.bindings.contains_key(name) && !frame.values.contains_key(name)
        })
    }

    /// A call on an instance built in this function: `loss_fn(x)` / `loss_fn.compute(x)` after
    /// `loss_fn = Loss()`, or `Loss()(x)` — the class's `__call__` (or method) when linking.
    fn instance_call(&self, call: &ast::ExprCall) -> Option<Sym> {
        let constructor_class = |expr: &Expr| -> Option<Sym> {
            let Expr::Call(constructor) = expr else {
                return None;
            };
            match self.resolve(&constructor.func)? {
                sym @ Sym::Local(_) => Some(sym),
                Sym::Dotted(dotted) if self.is_project_dotted(&dotted) => Some(Sym::Dotted(dotted)),
                _ => None,
            }
        };
        // A local built by a constructor, or a parameter annotated with a project class.
        let local_instance = |name: &str| {
            self.local_value(name)
                .and_then(constructor_class)
                .or_else(|| {
                    self.function_frame()
                        .filter(|frame| !frame.values.contains_key(name))
                        .and_then(|frame| frame.param_classes.get(name).cloned())
                })
        };
        let (class, method) = match &*call.func {
            Expr::Name(name) => (local_instance(name.id.as_str())?, "__call__"),
            Expr::Attribute(attribute) => match &*attribute.value {
                Expr::Name(name) => (
                    local_instance(name.id.as_str())?,
                    attribute.attr.id.as_str(),
                ),
                _ => return None,
            },
            constructor @ Expr::Call(_) => (constructor_class(constructor)?, "__call__"),
            _ => return None,
        };
        Some(Sym::Instance {
            class: Box::new(class),
            method: method.to_owned(),
        })
    }

    /// What a compile target names: a function or class directly, `self.attr` (typed when
    /// linking from `self.attr = Cls(...)`), or a local assigned `Cls(...)`.
    fn instance_sym(&self, target: &Expr) -> Option<Sym> {
        if let Expr::Name(name) = target
            && let Some(Expr::Call(call)) = self.local_value(name.id.as_str())
        {
            return self.resolve(&call.func);
        }
        self.resolve(target)
    }

    pub(crate) fn summary_mut(&mut self) -> &mut FileSummary {
        &mut self.summary
    }

    /// The file's summary, with module-level imports and predicate aliases filled in.
    pub(crate) fn finish(self) -> FileSummary {
        let dispatch: HashMap<String, Vec<Sym>> = self
            .module_dicts
            .iter()
            .map(|(name, dict)| (name.clone(), self.dispatch_callees(dict)))
            .filter(|(_, callees)| !callees.is_empty())
            .collect();
        let mut summary = self.summary;
        summary.module_dispatch = dispatch;
        for (name, binding) in self.module_bindings {
            match binding {
                Binding::Import(target) => {
                    summary.imports.insert(name, target);
                }
                Binding::Predicate(cond) => {
                    summary.predicate_aliases.insert(name, cond);
                }
                _ => {}
            }
        }
        summary
    }
}

/// The shape of a call's arguments (for default-flag pinning).
fn call_args(arguments: &ast::Arguments) -> CallArgs {
    let spread_name = |value: &Expr| match value {
        Expr::Name(name) => name.id.to_string(),
        _ => String::new(),
    };
    let bare_name = |value: &Expr| match value {
        Expr::Name(name) => Some(name.id.to_string()),
        _ => None,
    };
    // `x.shape` / `x.size()`: a torch.Size (a tuple) whatever `x` is.
    let is_size = |value: &Expr| match value {
        Expr::Attribute(attribute) => attribute.attr.id.as_str() == "shape",
        Expr::Call(call) => {
            call.arguments.is_empty()
                && matches!(&*call.func, Expr::Attribute(a) if a.attr.id.as_str() == "size")
        }
        _ => false,
    };
    let mut args = CallArgs::default();
    let mut positional = Vec::new();
    let mut positional_consts = Vec::new();
    let mut sizes = Vec::new();
    for argument in arguments.args.iter() {
        match argument {
            Expr::Starred(starred) => args.star = Some(spread_name(&starred.value)),
            other => {
                if is_size(other) {
                    sizes.push(positional.len() as u32);
                }
                positional.push(bare_name(other));
                positional_consts.push(ConstValue::of(other));
            }
        }
    }
    let mut keywords = Vec::new();
    let mut keyword_consts = Vec::new();
    let mut size_keywords = Vec::new();
    for keyword in arguments.keywords.iter() {
        match &keyword.arg {
            Some(name) => {
                if is_size(&keyword.value) {
                    size_keywords.push(name.id.to_string());
                }
                keywords.push((name.id.to_string(), bare_name(&keyword.value)));
                keyword_consts.push(ConstValue::of(&keyword.value));
            }
            None => args.double_star = Some(spread_name(&keyword.value)),
        }
    }
    args.positional_consts = positional_consts.into();
    args.keyword_consts = keyword_consts.into();
    args.size_positions = sizes.into();
    args.size_keywords = size_keywords.into();
    args.positional = positional.into();
    args.keywords = keywords.into();
    args
}

fn join_dotted(base: &str, attrs: &[&str]) -> String {
    let mut out =
        String::with_capacity(base.len() + attrs.iter().map(|a| a.len() + 1).sum::<usize>());
    out.push_str(base);
    for attr in attrs {
        out.push('.');
        out.push_str(attr);
    }
    out
}

fn import_bindings(import: &ast::StmtImport) -> Vec<(String, String)> {
    import
        .names
        .iter()
        .map(|alias| match &alias.asname {
            // `import torch.nn as nn` binds nn → torch.nn.
            Some(asname) => (asname.id.to_string(), alias.name.id.to_string()),
            // `import torch.nn` binds torch → torch.
            None => {
                let root = alias
                    .name
                    .id
                    .split('.')
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                (root.clone(), root)
            }
        })
        .collect()
}

fn collect_returns<'b>(body: &'b [Stmt], out: &mut Vec<Option<&'b Expr>>, depth: u32) {
    if depth > 32 {
        return;
    }
    for stmt in body {
        match stmt {
            Stmt::Return(ret) => out.push(ret.value.as_deref()),
            Stmt::If(stmt_if) => {
                collect_returns(&stmt_if.body, out, depth + 1);
                for clause in &stmt_if.elif_else_clauses {
                    collect_returns(&clause.body, out, depth + 1);
                }
            }
            Stmt::Try(stmt_try) => {
                collect_returns(&stmt_try.body, out, depth + 1);
                for handler in &stmt_try.handlers {
                    let ast::ExceptHandler::ExceptHandler(handler) = handler;
                    collect_returns(&handler.body, out, depth + 1);
                }
                collect_returns(&stmt_try.orelse, out, depth + 1);
            }
            Stmt::With(with) => collect_returns(&with.body, out, depth + 1),
            _ => {}
        }
    }
}

/// Does every path through `body` end in `return` (no exception)? `if`/`else` both returning,
/// `with` bodies that return.
pub(crate) fn always_returns(body: &[Stmt]) -> bool {
    always_returns_depth(body, 0)
}

fn always_returns_depth(body: &[Stmt], depth: u32) -> bool {
    if depth > 16 {
        return false;
    }
    body.iter().any(|stmt| match stmt {
        Stmt::Return(_) => true,
        Stmt::If(stmt_if) => {
            always_returns_depth(&stmt_if.body, depth + 1)
                && stmt_if
                    .elif_else_clauses
                    .iter()
                    .any(|clause| clause.test.is_none())
                && stmt_if
                    .elif_else_clauses
                    .iter()
                    .all(|clause| always_returns_depth(&clause.body, depth + 1))
        }
        Stmt::With(with) => always_returns_depth(&with.body, depth + 1),
        _ => false,
    })
}

fn block_terminates(body: &[Stmt]) -> bool {
    matches!(
        body.last(),
        Some(Stmt::Return(_) | Stmt::Raise(_) | Stmt::Continue(_) | Stmt::Break(_))
    )
}

/// Does the handler catch any of `names` (a bare `except:` catches everything)?
fn handler_catches(handler: &ast::ExceptHandler, names: &[&str]) -> bool {
    let ast::ExceptHandler::ExceptHandler(handler) = handler;
    let Some(kind) = &handler.type_ else {
        return true;
    };
    let caught: Vec<&Expr> = match &**kind {
        Expr::Tuple(tuple) => tuple.elts.iter().collect(),
        other => vec![other],
    };
    caught
        .iter()
        .any(|name| matches!(name, Expr::Name(n) if names.contains(&n.id.as_str())))
}

/// A failed import lands here: an availability probe when the `try` wraps an import (BR002).
fn catches_import_failure(handler: &ast::ExceptHandler) -> bool {
    handler_catches(
        handler,
        &[
            "ImportError",
            "ModuleNotFoundError",
            "Exception",
            "BaseException",
        ],
    )
}

/// A failed import or a missing attribute lands here: a feature probe (VR001 stays quiet).
fn handler_catches_probe_errors(handler: &ast::ExceptHandler) -> bool {
    handler_catches(
        handler,
        &[
            "ImportError",
            "ModuleNotFoundError",
            "AttributeError",
            "Exception",
            "BaseException",
        ],
    )
}

/// `Tensor, List[int], Dict[str, Tensor]` → the three top-level items (commas inside brackets kept).
fn split_top_level(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(text[start..].trim());
    items
}

/// Put `name` in `set` when the fact holds, take it out when it doesn't (skipping the hash of an empty
/// set: most frames never hold any).
fn set_membership<'a, S: std::hash::BuildHasher>(
    set: &mut std::collections::HashSet<&'a str, S>,
    name: &'a str,
    holds: bool,
) {
    if holds {
        set.insert(name);
    } else if !set.is_empty() {
        set.remove(name);
    }
}
