//! Phase 2–3 of `scan`, per file and in parallel: read, parse (recovering), and walk the AST once,
//! building the file's summary — bindings, definitions, call sites, guards — and the rule findings
//! whose fate the linker decides.

use crate::config::TorchVersion;
use crate::diagnostics::{Edit, Fix, Noqa};
use crate::rules;
use crate::semantic::Sym;
use crate::semantic::cond::{Atom, Cond, atom_for_qualified};
use crate::semantic::summary::{
    Candidate, ClassInfo, FileSummary, FuncIdx, FunctionInfo, Guard, GuardIdx, GuardStep, Scope,
};
use crate::semantic::tensor::{self, TensorKind};
use crate::source::{LineIndex, Location, read_source};
use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Deeper than this, the walk stops descending and reports E003 (no real code nests this deep;
/// generated or hostile files do, and recursion must stay bounded).
const MAX_AST_DEPTH: u32 = 1500;
/// Bound for the small recursive helpers (tensor-ness, guard formulas, searches in one expression).
const MAX_EXPR_DEPTH: u32 = 48;

/// Everything a file's analysis needs to know from outside the file.
pub struct FileContext<'a> {
    pub module: String,
    pub is_package_init: bool,
    /// Top-level module names of the project, so imports of project code become call-graph edges.
    pub project_roots: &'a HashSet<String>,
    pub torch_floor: Option<TorchVersion>,
    /// Where the floor came from, for messages ("pyproject.toml: torch>=2.2").
    pub torch_floor_origin: &'a str,
    pub api_table: &'a crate::rules::vr001_api_newer_than_floor::ApiTable,
}

pub fn analyze_path(path: &Path, ctx: &FileContext<'_>) -> FileSummary {
    let mut summary = FileSummary {
        path: path.to_path_buf(),
        module: ctx.module.clone(),
        ..FileSummary::default()
    };
    let source = match read_source(path) {
        Ok(source) => source,
        Err(err) => {
            let start = Location { row: 1, column: 1 };
            summary.file_diagnostics.push(Candidate {
                code: rules::meta::UnreadableFile::META.code,
                message: err.to_string(),
                location: start,
                end_location: start,
                fix: None,
                func: None,
                path: Vec::new(),
                scope: Scope::Anywhere,
                breaks_or_crashes: false,
            });
            return summary;
        }
    };
    analyze_source(&source, ctx, summary)
}

pub fn analyze_source(
    source: &str,
    ctx: &FileContext<'_>,
    mut summary: FileSummary,
) -> FileSummary {
    let lines = LineIndex::new(source);
    let parsed = ruff_python_parser::parse_unchecked_source(source, ast::PySourceType::Python);

    for error in parsed.errors().iter().take(20) {
        let location = lines.location(source, error.location.start().into());
        let end_location = lines.location(source, error.location.end().into());
        summary.file_diagnostics.push(Candidate {
            code: rules::meta::SyntaxError::META.code,
            message: format!("SyntaxError: {}", error.error),
            location,
            end_location,
            fix: None,
            func: None,
            path: Vec::new(),
            scope: Scope::Anywhere,
            breaks_or_crashes: false,
        });
    }

    for token in parsed.tokens().iter() {
        if token.kind() == TokenKind::Comment {
            let range = token.range();
            let text = &source[range];
            if let Some(noqa) = Noqa::parse(text) {
                let row = lines.line_of(range.start().into()) as u32 + 1;
                summary.noqa.insert(row, noqa);
            }
        }
    }

    let module = parsed.syntax();
    let package = if ctx.is_package_init {
        ctx.module.clone()
    } else {
        ctx.module
            .rsplit_once('.')
            .map(|(p, _)| p.to_owned())
            .unwrap_or_default()
    };
    let mut analyzer = Analyzer {
        source,
        lines: &lines,
        ctx,
        package,
        module_bindings: HashMap::new(),
        frames: Vec::new(),
        guard_path: Vec::new(),
        import_guard_depth: 0,
        import_probe_depth: 0,
        depth: 0,
        too_deep: false,
        last_if_guard: None,
        probes: Vec::new(),
        numeric_attrs: HashSet::new(),
        if_guards: HashMap::new(),
        pending_counters: Vec::new(),
        summary,
    };
    analyzer.collect_module_bindings(&module.body);
    analyzer.visit_body(&module.body);
    // RC001: only counters whose attribute some method sets to a Python number (not a buffer).
    for (candidate, key) in std::mem::take(&mut analyzer.pending_counters) {
        if analyzer.numeric_attrs.contains(&key) {
            analyzer.summary.candidates.push(candidate);
        }
    }
    let mut summary = analyzer.summary;
    for (name, binding) in &analyzer.module_bindings {
        match binding {
            Binding::Import(target) => {
                summary.imports.insert(name.clone(), target.clone());
            }
            Binding::Predicate(cond) => {
                summary.predicate_aliases.insert(name.clone(), cond.clone());
            }
            _ => {}
        }
    }
    // A pathologically deep tree would overflow the stack in its recursive destructor; leak it
    // instead (the process is short-lived and the size is bounded by the file).
    if analyzer.too_deep {
        std::mem::forget(parsed);
    }
    summary
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
    bindings: HashMap<String, Binding>,
    locals: HashMap<String, TensorKind>,
    /// Locals holding tensors built on the host (torch.tensor(...) without device=, ...).
    host_built: HashSet<String>,
    /// Locals holding lists of `_shape_as_tensor` results.
    shape_lists: HashSet<String>,
    /// The expression last assigned to each simple local (for rules that look through a name).
    values: HashMap<String, &'a Expr>,
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

pub struct Analyzer<'a> {
    source: &'a str,
    lines: &'a LineIndex,
    pub ctx: &'a FileContext<'a>,
    package: String,
    module_bindings: HashMap<String, Binding>,
    frames: Vec<Frame<'a>>,
    guard_path: Vec<GuardStep>,
    /// > 0 inside `try:` bodies whose handlers catch ImportError/AttributeError (feature probes).
    pub import_guard_depth: u32,
    /// > 0 inside `try:` bodies whose handlers catch ImportError (an availability probe).
    pub import_probe_depth: u32,
    depth: u32,
    too_deep: bool,
    last_if_guard: Option<GuardIdx>,
    /// Attributes probed by an enclosing `hasattr(...) and ...` or conditional expression.
    probes: Vec<String>,
    /// `(class, attr)` pairs some method initializes to a Python number (`self.calls = 0`).
    numeric_attrs: HashSet<(String, String)>,
    /// Guard index of each recorded `if` statement, by its start offset (for early returns nested
    /// in `with` / `try` bodies).
    if_guards: HashMap<ruff_text_size::TextSize, GuardIdx>,
    /// RC001 candidates waiting to learn whether their attribute is a Python number.
    pending_counters: Vec<(Candidate, (String, String))>,
    summary: FileSummary,
}

impl<'a> Analyzer<'a> {
    // ----- bindings -------------------------------------------------------------------------

    fn collect_module_bindings(&mut self, body: &'a [Stmt]) {
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
    fn predicate_reference(&self, value: &Expr) -> Option<Cond> {
        if let Some(qualified) = self.getattr_target(value) {
            return atom_for_qualified(&qualified).map(Cond::Atom);
        }
        match self.resolve(value)? {
            Sym::Dotted(qualified) => atom_for_qualified(&qualified).map(Cond::Atom),
            _ => None,
        }
    }

    /// `getattr(<dotted>, "<attr>", ...)` → `<dotted>.<attr>`.
    fn getattr_target(&self, expr: &Expr) -> Option<String> {
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

    fn import_from_bindings(&self, import: &ast::StmtImportFrom) -> Vec<(String, String)> {
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

    fn import_from_module(&self, import: &ast::StmtImportFrom) -> String {
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

    /// `(self parameter name, class local qualname)` when inside a method.
    fn method_context(&self) -> Option<(&str, &str)> {
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

    fn current_function(&self) -> Option<FuncIdx> {
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

    // ----- tensor-ness ----------------------------------------------------------------------

    pub fn tensor_kind(&self, expr: &Expr) -> TensorKind {
        self.tensor_kind_depth(expr, 0)
    }

    fn tensor_kind_depth(&self, expr: &Expr, depth: u32) -> TensorKind {
        if depth > MAX_EXPR_DEPTH {
            return TensorKind::Unknown;
        }
        match expr {
            Expr::Name(name) => {
                if let Some(frame) = self.function_frame()
                    && let Some(kind) = frame.locals.get(name.id.as_str())
                {
                    return *kind;
                }
                TensorKind::Unknown
            }
            Expr::Attribute(attribute) => {
                if tensor::is_metadata_attribute(attribute.attr.id.as_str()) {
                    TensorKind::NotTensor
                } else if tensor::is_tensor_attribute(attribute.attr.id.as_str())
                    && self.tensor_kind_depth(&attribute.value, depth + 1) == TensorKind::Tensor
                {
                    TensorKind::Tensor
                } else {
                    TensorKind::Unknown
                }
            }
            Expr::Call(call) => self.call_kind(call, depth),
            Expr::Compare(compare) => {
                use ast::CmpOp;
                if compare
                    .ops
                    .iter()
                    .all(|op| matches!(op, CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn))
                {
                    return TensorKind::NotTensor;
                }
                let mut all_host = true;
                for operand in std::iter::once(&*compare.left).chain(compare.comparators.iter()) {
                    match self.tensor_kind_depth(operand, depth + 1) {
                        TensorKind::Tensor => return TensorKind::Tensor,
                        TensorKind::Unknown => all_host = false,
                        TensorKind::NotTensor => {}
                    }
                }
                if all_host {
                    TensorKind::NotTensor
                } else {
                    TensorKind::Unknown
                }
            }
            Expr::BinOp(binop) => {
                let left = self.tensor_kind_depth(&binop.left, depth + 1);
                let right = self.tensor_kind_depth(&binop.right, depth + 1);
                match (left, right) {
                    (TensorKind::Tensor, _) | (_, TensorKind::Tensor) => TensorKind::Tensor,
                    (TensorKind::NotTensor, TensorKind::NotTensor) => TensorKind::NotTensor,
                    _ => TensorKind::Unknown,
                }
            }
            Expr::UnaryOp(unary) => match unary.op {
                ast::UnaryOp::Not => TensorKind::NotTensor,
                _ => self.tensor_kind_depth(&unary.operand, depth + 1),
            },
            Expr::Subscript(subscript) => match self.tensor_kind_depth(&subscript.value, depth + 1)
            {
                TensorKind::Tensor => TensorKind::Tensor,
                TensorKind::NotTensor => TensorKind::NotTensor,
                TensorKind::Unknown => TensorKind::Unknown,
            },
            Expr::NumberLiteral(_)
            | Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::EllipsisLiteral(_)
            | Expr::FString(_)
            | Expr::List(_)
            | Expr::Tuple(_)
            | Expr::Dict(_)
            | Expr::Set(_)
            | Expr::ListComp(_)
            | Expr::DictComp(_)
            | Expr::SetComp(_)
            | Expr::Lambda(_) => TensorKind::NotTensor,
            Expr::Named(named) => self.tensor_kind_depth(&named.value, depth + 1),
            _ => TensorKind::Unknown,
        }
    }

    fn call_kind(&self, call: &ast::ExprCall, depth: u32) -> TensorKind {
        if let Expr::Name(name) = &*call.func
            && self.lookup(name.id.as_str()).is_none()
        {
            // Builtins: all return host values (or are opaque).
            return match name.id.as_str() {
                "int" | "float" | "bool" | "len" | "isinstance" | "hasattr" | "callable"
                | "str" | "type" | "id" | "range" | "tuple" | "list" | "dict" | "set" | "any"
                | "all" | "repr" | "round" => TensorKind::NotTensor,
                _ => TensorKind::Unknown,
            };
        }
        if let Some(qualified) = self.qualified(&call.func) {
            return tensor::torch_callable_returns_tensor(&qualified);
        }
        if let Expr::Attribute(attribute) = &*call.func {
            let method = attribute.attr.id.as_str();
            if tensor::is_host_value_method(method) {
                return TensorKind::NotTensor;
            }
            if tensor::is_tensor_returning_method(method)
                && self.receiver_may_be_tensor(&attribute.value, depth)
            {
                return TensorKind::Tensor;
            }
        }
        TensorKind::Unknown
    }

    /// A method receiver that could be a tensor: not a host value, not `self`, not a module.
    pub fn receiver_may_be_tensor(&self, receiver: &Expr, depth: u32) -> bool {
        if let Expr::Name(name) = receiver {
            if let Some((self_name, _)) = self.method_context()
                && name.id.as_str() == self_name
            {
                return false;
            }
            if matches!(
                self.lookup(name.id.as_str()),
                Some(Binding::Import(_) | Binding::Def(_) | Binding::Class(_))
            ) {
                return false;
            }
        }
        if matches!(receiver, Expr::Attribute(_)) && self.qualified(receiver).is_some() {
            return false;
        }
        self.tensor_kind_depth(receiver, depth + 1) != TensorKind::NotTensor
    }

    /// Does evaluating `test` for truth read a tensor's value?
    pub fn truthiness_reads_tensor(&self, test: &Expr) -> bool {
        self.truthiness_reads_tensor_depth(test, 0)
    }

    fn truthiness_reads_tensor_depth(&self, test: &Expr, depth: u32) -> bool {
        if depth > MAX_EXPR_DEPTH {
            return false;
        }
        match test {
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => {
                self.truthiness_reads_tensor_depth(&unary.operand, depth + 1)
            }
            Expr::BoolOp(boolop) => boolop
                .values
                .iter()
                .any(|value| self.truthiness_reads_tensor_depth(value, depth + 1)),
            _ => self.tensor_kind(test) == TensorKind::Tensor,
        }
    }

    /// The expression last assigned to local `name` in the current function, if it is that simple.
    pub fn local_value(&self, name: &str) -> Option<&'a Expr> {
        self.function_frame()?.values.get(name).copied()
    }

    /// Is `expr` a tensor built from host data (so moving it to the device is a host→device copy)?
    pub fn is_host_built(&self, expr: &Expr) -> bool {
        self.is_host_built_depth(expr, 0)
    }

    fn is_host_built_depth(&self, expr: &Expr, depth: u32) -> bool {
        if depth > MAX_EXPR_DEPTH {
            return false;
        }
        match expr {
            Expr::Name(name) => self
                .function_frame()
                .is_some_and(|frame| frame.host_built.contains(name.id.as_str())),
            Expr::Subscript(subscript) => self.is_host_built_depth(&subscript.value, depth + 1),
            Expr::Call(call) => {
                let Some(qualified) = self.qualified(&call.func) else {
                    return false;
                };
                match qualified.as_str() {
                    // `as_tensor(t)` of a tensor returns it as it is: nothing is built on the host.
                    "torch.tensor" | "torch.as_tensor" | "torch.asarray" => {
                        call.arguments.find_keyword("device").is_none()
                            && !call.arguments.args.first().is_some_and(|data| {
                                self.tensor_kind_depth(data, depth + 1) == TensorKind::Tensor
                            })
                    }
                    "torch.from_numpy" | "torch._shape_as_tensor" => true,
                    "torch.stack" | "torch.cat" | "torch.concat" | "torch.concatenate" => {
                        match call.arguments.args.first() {
                            Some(Expr::List(list)) => {
                                !list.elts.is_empty()
                                    && list
                                        .elts
                                        .iter()
                                        .all(|e| self.is_host_built_depth(e, depth + 1))
                            }
                            Some(Expr::Tuple(tuple)) => {
                                !tuple.elts.is_empty()
                                    && tuple
                                        .elts
                                        .iter()
                                        .all(|e| self.is_host_built_depth(e, depth + 1))
                            }
                            Some(Expr::ListComp(comp)) => {
                                self.is_host_built_depth(&comp.elt, depth + 1)
                            }
                            Some(Expr::Generator(comp)) => {
                                self.is_host_built_depth(&comp.elt, depth + 1)
                            }
                            _ => false,
                        }
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// Does `expr` contain a call to `torch._shape_as_tensor` (through subscripts, arithmetic…)?
    pub fn contains_shape_as_tensor(&self, expr: &Expr) -> bool {
        // Locals are followed one hop only: `h = h + r` must not recurse into itself.
        self.contains_shape_as_tensor_depth(expr, 0, true)
    }

    fn contains_shape_as_tensor_depth(&self, expr: &Expr, depth: u32, follow_locals: bool) -> bool {
        if depth > MAX_EXPR_DEPTH {
            return false;
        }
        match expr {
            Expr::Call(call) => {
                self.qualified(&call.func).as_deref() == Some("torch._shape_as_tensor")
                    || matches!(&*call.func, Expr::Attribute(a) if self.contains_shape_as_tensor_depth(&a.value, depth + 1, follow_locals))
            }
            Expr::Subscript(subscript) => {
                self.contains_shape_as_tensor_depth(&subscript.value, depth + 1, follow_locals)
            }
            Expr::BinOp(binop) => {
                self.contains_shape_as_tensor_depth(&binop.left, depth + 1, follow_locals)
                    || self.contains_shape_as_tensor_depth(&binop.right, depth + 1, follow_locals)
            }
            Expr::Name(name) => {
                self.function_frame()
                    .is_some_and(|frame| frame.shape_lists.contains(name.id.as_str()))
                    || follow_locals
                        && self.local_value(name.id.as_str()).is_some_and(|value| {
                            !matches!(value, Expr::Name(_))
                                && self.contains_shape_as_tensor_depth(value, depth + 1, false)
                        })
            }
            _ => false,
        }
    }

    /// Is `expr` itself `torch._shape_as_tensor(x)` or a subscript of it — what Dynamo models as a
    /// `torch.Size`? Follows a local one hop (`sizes = torch._shape_as_tensor(x)`), so
    /// `sizes = sizes[1:]` cannot recurse into itself.
    pub fn is_shape_as_tensor_value(&self, expr: &Expr) -> bool {
        self.is_shape_as_tensor_value_depth(expr, 0, true)
    }

    fn is_shape_as_tensor_value_depth(&self, expr: &Expr, depth: u32, follow_locals: bool) -> bool {
        if depth > MAX_EXPR_DEPTH {
            return false;
        }
        match expr {
            Expr::Call(call) => {
                self.qualified(&call.func).as_deref() == Some("torch._shape_as_tensor")
            }
            Expr::Subscript(subscript) => {
                self.is_shape_as_tensor_value_depth(&subscript.value, depth + 1, follow_locals)
            }
            Expr::Name(name) if follow_locals => self
                .local_value(name.id.as_str())
                .is_some_and(|value| self.is_shape_as_tensor_value_depth(value, depth + 1, false)),
            _ => false,
        }
    }

    /// Is `expr` a list/tuple/comprehension of `_shape_as_tensor` results (or a local holding one)?
    pub fn is_shape_tensor_sequence(&self, expr: &Expr) -> bool {
        match expr {
            Expr::List(list) => list.elts.iter().any(|e| self.contains_shape_as_tensor(e)),
            Expr::Tuple(tuple) => tuple.elts.iter().any(|e| self.contains_shape_as_tensor(e)),
            Expr::ListComp(comp) => self.contains_shape_as_tensor(&comp.elt),
            Expr::Generator(comp) => self.contains_shape_as_tensor(&comp.elt),
            Expr::Name(name) => self
                .function_frame()
                .is_some_and(|frame| frame.shape_lists.contains(name.id.as_str())),
            _ => false,
        }
    }

    // ----- guards ---------------------------------------------------------------------------

    pub fn cond_of(&self, expr: &Expr) -> Cond {
        // Locals are followed one hop only (`compiling = is_compiling()`), never into themselves.
        self.cond_of_depth(expr, 0, true)
    }

    fn cond_of_depth(&self, expr: &Expr, depth: u32, follow_locals: bool) -> Cond {
        if depth > MAX_EXPR_DEPTH {
            return Cond::Unknown;
        }
        match expr {
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => Cond::Not(Box::new(
                self.cond_of_depth(&unary.operand, depth + 1, follow_locals),
            )),
            Expr::BoolOp(boolop) => {
                let items = boolop
                    .values
                    .iter()
                    .map(|v| self.cond_of_depth(v, depth + 1, follow_locals))
                    .collect();
                match boolop.op {
                    ast::BoolOp::And => Cond::And(items),
                    ast::BoolOp::Or => Cond::Or(items),
                }
            }
            Expr::BooleanLiteral(literal) => Cond::Const(literal.value),
            Expr::Call(call) => self.cond_of_call(call),
            // `compiling = is_compiling()` … `if compiling:`
            Expr::Name(name) if follow_locals => match self.local_value(name.id.as_str()) {
                Some(value) if !matches!(value, Expr::Name(_)) => {
                    self.cond_of_depth(value, depth + 1, false)
                }
                _ => Cond::Unknown,
            },
            _ => Cond::Unknown,
        }
    }

    fn cond_of_call(&self, call: &ast::ExprCall) -> Cond {
        // `getattr(torch.compiler, "is_compiling", lambda: False)()`
        if let Some(qualified) = self.getattr_target(&call.func) {
            return atom_for_qualified(&qualified).map_or(Cond::Unknown, Cond::Atom);
        }
        if self.is_builtin(&call.func, "hasattr") {
            if let [object, Expr::StringLiteral(attr), ..] = &*call.arguments.args
                && let Some(base) = self.qualified(object)
            {
                return Cond::Atom(Atom::Probe(format!("{base}.{}", attr.value.to_str())));
            }
            return Cond::Unknown;
        }
        if let Expr::Name(name) = &*call.func
            && let Some(Binding::Predicate(cond)) = self.lookup(name.id.as_str())
        {
            return cond.clone();
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

    /// Records `test` as a guard (when it mentions something we understand) and enters its
    /// `branch`; returns the previous path length for [`Analyzer::leave_guards`].
    pub fn enter_guard(&mut self, test: &Expr, branch: bool) -> usize {
        let saved = self.guard_path.len();
        if let Some(g) = self.add_guard(test) {
            self.guard_path.push((g, branch));
        }
        saved
    }

    pub fn leave_guards(&mut self, saved: usize) {
        self.guard_path.truncate(saved);
    }

    /// Is `qualified` probed (`hasattr`/`getattr`) by a guard or `and`-chain around this code?
    pub fn is_probed(&self, qualified: &str) -> bool {
        self.probes.iter().any(|p| p == qualified)
            || self.guard_path.iter().any(|(g, _)| {
                self.summary.guards[*g as usize]
                    .cond
                    .mentions_probe(qualified)
            })
    }

    fn push_probes(&mut self, test: &Expr) {
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

    pub fn report(
        &mut self,
        meta: &'static rules::RuleMeta,
        range: TextRange,
        message: String,
        fix: Option<Fix>,
        scope: Scope,
        breaks_or_crashes: bool,
    ) {
        let func = self.current_function();
        if scope == Scope::CompiledRegion && func.is_none() {
            // Module and class bodies run once at import: Dynamo never traces them.
            return;
        }
        let candidate = Candidate {
            code: meta.code,
            message,
            location: self.location(range.start().into()),
            end_location: self.location(range.end().into()),
            fix,
            func,
            path: self.guard_path.clone(),
            scope,
            breaks_or_crashes,
        };
        self.summary.candidates.push(candidate);
    }

    // ----- definitions ----------------------------------------------------------------------

    fn visit_function(&mut self, def: &'a ast::StmtFunctionDef) {
        let mut compile_decorated = false;
        let mut disabled = false;
        let mut disabled_frame_only = false;
        for decorator in &def.decorator_list {
            self.visit_expr(&decorator.expression);
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
        for param in def.parameters.iter_non_variadic_params() {
            if let Some(default) = &param.default {
                self.visit_expr(default);
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
            disabled,
            disabled_frame_only,
            calls: Vec::new(),
            predicate: None,
        });
        self.summary.function_by_name.insert(qual.clone(), idx);
        if let Some(frame) = self.function_frame_mut() {
            frame.bindings.insert(name, Binding::Def(qual.clone()));
        }

        let mut locals = HashMap::new();
        let mut self_name = None;
        let params = &def.parameters;
        for (position, param) in params
            .posonlyargs
            .iter()
            .chain(params.args.iter())
            .enumerate()
        {
            let param_name = param.parameter.name.id.to_string();
            if position == 0 && class.is_some() && !self.is_static(def) {
                self_name = Some(param_name);
                continue;
            }
            let kind = param
                .parameter
                .annotation
                .as_deref()
                .map_or(TensorKind::Unknown, |ann| self.annotation_kind(ann));
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

        self.frames.push(Frame {
            qual,
            kind: FrameKind::Function {
                idx,
                self_name,
                class,
            },
            bindings: HashMap::new(),
            locals,
            host_built: HashSet::new(),
            shape_lists: HashSet::new(),
            values: HashMap::new(),
        });
        let saved_path = std::mem::take(&mut self.guard_path);
        let saved_import_guard = std::mem::replace(&mut self.import_guard_depth, 0);
        let saved_import_probe = std::mem::replace(&mut self.import_probe_depth, 0);
        self.collect_nested_defs(&def.body);
        self.visit_body(&def.body);
        self.guard_path = saved_path;
        self.import_guard_depth = saved_import_guard;
        self.import_probe_depth = saved_import_probe;

        let predicate = self.predicate_of_body(&def.body);
        self.summary.functions[idx as usize].predicate = predicate;
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
        match text.as_str() {
            "torch.Tensor" | "Tensor" | "torch.nn.Parameter" | "torch.FloatTensor"
            | "torch.LongTensor" | "torch.BoolTensor" => TensorKind::Tensor,
            "int" | "float" | "bool" | "str" | "list" | "dict" | "tuple" | "set" | "bytes"
            | "torch.device" | "torch.dtype" | "torch.Size" => TensorKind::NotTensor,
            _ => TensorKind::Unknown,
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

    fn visit_class(&mut self, class: &'a ast::StmtClassDef) {
        for decorator in &class.decorator_list {
            self.visit_expr(&decorator.expression);
        }
        let mut bases = Vec::new();
        if let Some(arguments) = &class.arguments {
            for base in arguments.args.iter() {
                self.visit_expr(base);
                if let Some(sym) = self.resolve(base) {
                    bases.push(sym);
                }
            }
        }
        let name = class.name.id.to_string();
        let qual = match self.frames.last() {
            Some(frame) => format!("{}.{name}", frame.qual),
            None => name.clone(),
        };
        let idx = self.summary.classes.len() as u32;
        self.summary.classes.push(ClassInfo {
            qualname: qual.clone(),
            bases,
        });
        self.summary.class_by_name.insert(qual.clone(), idx);
        if let Some(frame) = self.function_frame_mut() {
            frame.bindings.insert(name, Binding::Class(qual.clone()));
        }
        self.frames.push(Frame {
            qual,
            kind: FrameKind::Class,
            bindings: HashMap::new(),
            locals: HashMap::new(),
            host_built: HashSet::new(),
            shape_lists: HashSet::new(),
            values: HashMap::new(),
        });
        self.visit_body(&class.body);
        self.frames.pop();
    }

    // ----- statements -----------------------------------------------------------------------

    fn visit_if(&mut self, stmt_if: &'a ast::StmtIf) {
        let saved = self.guard_path.len();
        rules::br001_tensor_truthiness_branch::check_test(self, &stmt_if.test);
        self.visit_expr(&stmt_if.test);
        let guard = self.add_guard(&stmt_if.test);
        if let Some(g) = guard {
            self.guard_path.push((g, true));
        }
        self.visit_body(&stmt_if.body);
        if let Some(g) = guard {
            self.guard_path.pop();
            self.guard_path.push((g, false));
        }
        for clause in &stmt_if.elif_else_clauses {
            match &clause.test {
                Some(test) => {
                    rules::br001_tensor_truthiness_branch::check_test(self, test);
                    self.visit_expr(test);
                    let clause_guard = self.add_guard(test);
                    if let Some(g) = clause_guard {
                        self.guard_path.push((g, true));
                    }
                    self.visit_body(&clause.body);
                    if let Some(g) = clause_guard {
                        self.guard_path.pop();
                        self.guard_path.push((g, false));
                    }
                }
                None => self.visit_body(&clause.body),
            }
        }
        self.guard_path.truncate(saved);
        self.last_if_guard = guard;
        if let Some(g) = guard {
            self.if_guards.insert(stmt_if.range.start(), g);
        }
    }

    fn visit_assign_targets(&mut self, targets: &[&'a Expr], value: &'a Expr) {
        // Module and class bodies keep no local facts: skip the work there.
        if !self.in_function() {
            return;
        }
        let kind = self.tensor_kind(value);
        let host_built = self.is_host_built(value);
        let shape_list = self.is_shape_tensor_sequence(value);
        let Some(frame) = self.function_frame_mut() else {
            return;
        };
        for target in targets {
            match target {
                Expr::Name(name) => {
                    let name = name.id.to_string();
                    if host_built {
                        frame.host_built.insert(name.clone());
                    } else {
                        frame.host_built.remove(&name);
                    }
                    if shape_list {
                        frame.shape_lists.insert(name.clone());
                    } else {
                        frame.shape_lists.remove(&name);
                    }
                    frame.bindings.remove(&name);
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

impl<'a> Visitor<'a> for Analyzer<'a> {
    fn visit_body(&mut self, body: &'a [Stmt]) {
        let saved = self.guard_path.len();
        for stmt in body {
            self.visit_stmt(stmt);
            // `if is_compiling(): return fast` — what follows runs only when the test was false.
            if let Stmt::If(stmt_if) = stmt
                && stmt_if.elif_else_clauses.is_empty()
                && block_terminates(&stmt_if.body)
                && let Some(g) = self.last_if_guard
            {
                self.guard_path.push((g, false));
            }
            // The same return inside a `with` or `try` body leaves the function too.
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
                    self.guard_path.push((g, false));
                }
            }
        }
        self.guard_path.truncate(saved);
    }

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        self.depth += 1;
        if self.depth > MAX_AST_DEPTH {
            self.report_too_deep(stmt.range());
            self.depth -= 1;
            return;
        }
        self.last_if_guard = None;
        match stmt {
            Stmt::FunctionDef(def) => self.visit_function(def),
            Stmt::ClassDef(class) => self.visit_class(class),
            Stmt::If(stmt_if) => self.visit_if(stmt_if),
            Stmt::While(stmt_while) => {
                rules::br001_tensor_truthiness_branch::check_test(self, &stmt_while.test);
                visitor::walk_stmt(self, stmt);
            }
            Stmt::Import(import) => {
                if let Some(alias) = import.names.first() {
                    rules::br002_import_probe_in_region::check_import(
                        self,
                        stmt.range(),
                        alias.name.id.as_str(),
                    );
                }
                if self.in_function() {
                    let bindings = import_bindings(import);
                    if let Some(frame) = self.function_frame_mut() {
                        for (name, target) in bindings {
                            frame.bindings.insert(name, Binding::Import(target));
                        }
                    }
                }
            }
            Stmt::ImportFrom(import) => {
                let bindings = self.import_from_bindings(import);
                rules::vr001_api_newer_than_floor::check_import_from(self, import, &bindings);
                // A relative import names the project's own code, which is always there.
                if import.level == 0 {
                    let module = self.import_from_module(import);
                    rules::br002_import_probe_in_region::check_import(self, stmt.range(), &module);
                }
                if self.in_function()
                    && let Some(frame) = self.function_frame_mut()
                {
                    for (name, target) in bindings {
                        frame.bindings.insert(name, Binding::Import(target));
                    }
                }
            }
            Stmt::Assign(assign) => {
                rules::cf001_suppress_errors::check_assign(self, assign);
                rules::ts001_patched_torch_compile::check_assign(self, assign);
                for target in &assign.targets {
                    self.track_self_attribute(target, Some(&assign.value), stmt.range());
                }
                visitor::walk_stmt(self, stmt);
                let targets: Vec<&Expr> = assign.targets.iter().collect();
                self.visit_assign_targets(&targets, &assign.value);
            }
            Stmt::AugAssign(assign) => {
                self.track_self_attribute(&assign.target, None, stmt.range());
                visitor::walk_stmt(self, stmt);
            }
            Stmt::AnnAssign(assign) => {
                visitor::walk_stmt(self, stmt);
                if let Some(value) = &assign.value {
                    self.visit_assign_targets(&[&assign.target], value);
                }
            }
            Stmt::Try(stmt_try) => {
                let guarded = stmt_try.handlers.iter().any(handler_catches_probe_errors);
                let probe = stmt_try.handlers.iter().any(catches_import_failure);
                self.import_guard_depth += u32::from(guarded);
                self.import_probe_depth += u32::from(probe);
                self.visit_body(&stmt_try.body);
                self.import_guard_depth -= u32::from(guarded);
                self.import_probe_depth -= u32::from(probe);
                for handler in &stmt_try.handlers {
                    let ast::ExceptHandler::ExceptHandler(handler) = handler;
                    if let Some(kind) = &handler.type_ {
                        self.visit_expr(kind);
                    }
                    self.visit_body(&handler.body);
                }
                self.visit_body(&stmt_try.orelse);
                self.visit_body(&stmt_try.finalbody);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        self.depth += 1;
        if self.depth > MAX_AST_DEPTH {
            self.report_too_deep(expr.range());
            self.depth -= 1;
            return;
        }
        match expr {
            Expr::Call(call) => {
                // Resolve the callee once; every rule that matches on it shares the answer.
                let callee = self.resolve(&call.func);
                let qualified = match &callee {
                    Some(Sym::Dotted(qualified)) => Some(qualified.as_str()),
                    _ => None,
                };
                rules::cr001_shape_as_tensor_stack::check_call(self, call, qualified);
                rules::sy001_blocking_host_to_device::check_call(self, call);
                rules::sy002_device_to_host_read::check_call(self, call, qualified);
                rules::cf001_suppress_errors::check_call(self, call);
                rules::ts001_patched_torch_compile::check_call(self, call, qualified);
                self.record_call(call, callee);
            }
            Expr::Attribute(attribute) => {
                rules::vr001_api_newer_than_floor::check_attribute(self, attribute);
            }
            Expr::If(if_expr) => {
                rules::br001_tensor_truthiness_branch::check_test(self, &if_expr.test);
                // `torch.compiler.x() if hasattr(torch.compiler, "x") else ...`: the body is probed.
                // `x if is_compiling() else x.item()`: each side is guarded like an if/else.
                self.visit_expr(&if_expr.test);
                let saved = self.probes.len();
                self.push_probes(&if_expr.test);
                let path = self.enter_guard(&if_expr.test, true);
                self.visit_expr(&if_expr.body);
                self.leave_guards(path);
                self.probes.truncate(saved);
                let path = self.enter_guard(&if_expr.test, false);
                self.visit_expr(&if_expr.orelse);
                self.leave_guards(path);
                self.depth -= 1;
                return;
            }
            Expr::BoolOp(boolop) => {
                // Short-circuit: in `a and b`, `b` runs only when `a` is True (in `a or b`, only when
                // it is False), so earlier operands guard later ones for every rule —
                // `not is_compiling() and x.item() > 0` never reads under Dynamo — and
                // `hasattr(torch.compiler, "x") and torch.compiler.x()` is a probe.
                let and = boolop.op == ast::BoolOp::And;
                let saved_probes = self.probes.len();
                let saved_path = self.guard_path.len();
                for value in &boolop.values {
                    self.visit_expr(value);
                    if and {
                        self.push_probes(value);
                    }
                    self.enter_guard(value, and);
                }
                self.leave_guards(saved_path);
                self.probes.truncate(saved_probes);
                self.depth -= 1;
                return;
            }
            _ => {}
        }
        visitor::walk_expr(self, expr);
        self.depth -= 1;
    }

    // Annotations never run under Dynamo and cannot hold hazards.
    fn visit_annotation(&mut self, _expr: &'a Expr) {}
}

impl<'a> Analyzer<'a> {
    fn report_too_deep(&mut self, range: TextRange) {
        if self.too_deep {
            return;
        }
        self.too_deep = true;
        let location = self.location(range.start().into());
        self.summary.file_diagnostics.push(Candidate {
            code: rules::meta::TooDeeplyNested::META.code,
            message: format!(
                "code nests more than {MAX_AST_DEPTH} levels deep; the rest of this construct was not analyzed"
            ),
            location,
            end_location: location,
            fix: None,
            func: None,
            path: Vec::new(),
            scope: Scope::Anywhere,
            breaks_or_crashes: false,
        });
    }

    /// `self.attr = <number>` records a Python-number attribute; `self.attr += ...` or
    /// `self.attr = self.attr + ...` (value `None` = augmented) is a pending RC001 counter.
    fn track_self_attribute(&mut self, target: &Expr, value: Option<&Expr>, range: TextRange) {
        let Expr::Attribute(attribute) = target else {
            return;
        };
        let Expr::Name(base) = &*attribute.value else {
            return;
        };
        let Some((self_name, class)) = self.method_context() else {
            return;
        };
        if base.id.as_str() != self_name {
            return;
        }
        let key = (class.to_owned(), attribute.attr.id.to_string());
        let bumps_itself = match value {
            None => true,
            Some(Expr::BinOp(binop)) => [&*binop.left, &*binop.right].into_iter().any(|side| {
                matches!(side, Expr::Attribute(a) if a.attr.id == attribute.attr.id
                    && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == self_name))
            }),
            // Only ints: on torch 2.11 a float attribute becomes dynamic after one recompile
            // (measured: 2 graphs for 12 calls), while an int recompiles on every call.
            Some(Expr::NumberLiteral(number)) if matches!(number.value, ast::Number::Int(_)) => {
                self.numeric_attrs.insert(key);
                return;
            }
            Some(_) => false,
        };
        let Some(func) = self.current_function() else {
            return;
        };
        if !bumps_itself {
            return;
        }
        let meta = &rules::rc001_python_counter_in_forward::PythonCounterInForward::META;
        let candidate = Candidate {
            code: meta.code,
            message: rules::rc001_python_counter_in_forward::message(&key.1),
            location: self.location(range.start().into()),
            end_location: self.location(range.end().into()),
            fix: None,
            func: Some(func),
            path: self.guard_path.clone(),
            scope: Scope::CompiledRegion,
            breaks_or_crashes: false,
        };
        self.pending_counters.push((candidate, key));
    }

    /// Call-graph edges and `torch.compile(fn)` roots.
    fn record_call(&mut self, call: &'a ast::ExprCall, callee: Option<Sym>) {
        let func = self.current_function();
        if let Some(Sym::Dotted(qualified)) = &callee
            && qualified == "torch.compile"
        {
            if let Some(target) = call.arguments.args.first()
                && let Some(sym) = self.resolve(target)
            {
                self.summary.compile_roots.push((func, sym));
            }
            return;
        }
        let Some(func) = func else { return };
        let edge = match callee {
            Some(Sym::Dotted(qualified)) if self.is_project_dotted(&qualified) => {
                Sym::Dotted(qualified)
            }
            Some(Sym::Dotted(_)) | None => return,
            Some(sym) => sym,
        };
        self.summary.functions[func as usize].calls.push(edge);
    }
}
