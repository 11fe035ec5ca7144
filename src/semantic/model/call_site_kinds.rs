//! Argument kinds at a compiled function's call sites in the same file: what `torch.compile(fn)(...)`,
//! `opt = torch.compile(fn); opt(...)` or a call of an `@torch.compile` function passes to each
//! parameter, when the argument is a kind of Python value Dynamo cannot use as a frame input the
//! way the function uses it (a builtin iterator or dict view, a constant, a disabled function, an
//! `nn.Module` whose `__init__` never ran `Module.__init__`, a list of tensors).
//!
//! Why: Dynamo wraps a frame's inputs by their Python type. A `zip` / `map` / `dict_items` object
//! arriving as an input is an opaque user object (iterating, `iter()`, `list()` of it break); a
//! constant used in `with` is not a context manager; a disabled function called is skipped; an
//! uninitialized module cannot be called; `sorted()` over tensors compares them. The function's
//! body alone does not say what it receives; its call site in the file does. The facts are
//! collected during the one walk (call sites come after the `def`) and read when the file ends
//! (`Requirement::CallSiteArgument`), so nothing is searched per finding.

use super::*;

/// Kinds of argument values a compiled function's call site passes (a bit set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArgKinds(pub u8);

impl ArgKinds {
    /// `zip(...)`, `map(...)`, `filter(...)`, `enumerate(...)`, `reversed(...)`, `iter(...)`,
    /// `d.items()`, `d.values()`.
    pub const BUILTIN_ITERATOR: ArgKinds = ArgKinds(1);
    /// A literal number, string, bytes, bool or `None`.
    pub const CONSTANT: ArgKinds = ArgKinds(2);
    /// A function of this file under `@torch.compiler.disable` / `@torch._dynamo.disable`.
    pub const DISABLED_FUNCTION: ArgKinds = ArgKinds(4);
    /// `Cls(...)`, `Cls` an `nn.Module` subclass of this file whose `__init__` never calls a base
    /// `__init__` (so `Module.__init__` never ran).
    pub const UNINITIALIZED_MODULE: ArgKinds = ArgKinds(8);
    /// A list literal of tensors (directly or through a module-level name bound to one).
    pub const TENSOR_LIST: ArgKinds = ArgKinds(16);
    /// A generator object: `(e for x in xs)`, or a call of a generator function of this file.
    pub const GENERATOR: ArgKinds = ArgKinds(32);
    /// A context manager the caller built: a torch class `input_context_managers.toml` lists
    /// (`torch.no_grad()`), or an instance of a class of this file that defines `__enter__`.
    pub const CONTEXT_MANAGER: ArgKinds = ArgKinds(64);

    pub fn intersects(self, other: ArgKinds) -> bool {
        self.0 & other.0 != 0
    }

    pub fn union(self, other: ArgKinds) -> ArgKinds {
        ArgKinds(self.0 | other.0)
    }
}

/// The module's statements and those of its top-level `if` blocks (`if __name__ == "__main__":`).
fn module_statements(body: &[Stmt]) -> impl Iterator<Item = &Stmt> {
    body.iter().flat_map(|stmt| {
        let nested: Box<dyn Iterator<Item = &Stmt>> = match stmt {
            Stmt::If(stmt_if) => Box::new(
                stmt_if.body.iter().chain(
                    stmt_if
                        .elif_else_clauses
                        .iter()
                        .flat_map(|clause| clause.body.iter()),
                ),
            ),
            _ => Box::new(std::iter::empty()),
        };
        std::iter::once(stmt).chain(nested)
    })
}

/// Builtins whose call returns an iterator object (not a list).
const ITERATOR_BUILTINS: &[&str] = &["zip", "map", "filter", "enumerate", "reversed", "iter"];

#[derive(Default)]
pub(crate) struct CallSiteKinds<'a> {
    /// The module's statements (classes and list bindings are looked up here, only at a
    /// compiled call site).
    module_body: &'a [Stmt],
    /// Module-level `name = torch.compile(fn, ...)`: name → the compiled function's name.
    compiled_aliases: FxMap<String, String>,
    /// The same binding inside a function (`opt_fn = torch.compile(fn)` in the function that
    /// defines `fn`): (function, name) → the compiled function's name.
    local_aliases: FxMap<(FuncIdx, String), String>,
    /// Module-level names bound exactly once, by `name = <call>` (a module-level instance
    /// `registry = Registry()`); `None` for a name the module binds more than once.
    module_calls: FxMap<&'a str, Option<&'a Expr>>,
    /// The `def` of each function of this file (read only at a compiled call site).
    function_defs: FxMap<FuncIdx, &'a ast::StmtFunctionDef>,
    /// (compiled function, parameter) → the kinds its call sites pass.
    kinds: FxMap<(FuncIdx, String), ArgKinds>,
}

impl<'a> SemanticModel<'a> {
    /// Before the walk: the module body, and its `name = torch.compile(fn, ...)` bindings.
    pub(crate) fn note_module_body(&mut self, body: &'a [Stmt]) {
        self.call_site_kinds.module_body = body;
        for stmt in module_statements(body) {
            let (targets, value): (&[Expr], Option<&'a Expr>) = match stmt {
                Stmt::Assign(assign) => (assign.targets.as_slice(), Some(&*assign.value)),
                Stmt::AnnAssign(assign) => (
                    std::slice::from_ref(&*assign.target),
                    assign.value.as_deref(),
                ),
                _ => continue,
            };
            for target in targets {
                let Expr::Name(target) = target else { continue };
                self.call_site_kinds
                    .module_calls
                    .entry(target.id.as_str())
                    .and_modify(|seen| *seen = None)
                    .or_insert(value.filter(|v| matches!(v, Expr::Call(_))));
            }
        }
        for stmt in module_statements(body) {
            let Stmt::Assign(assign) = stmt else {
                continue;
            };
            let [Expr::Name(target)] = assign.targets.as_slice() else {
                continue;
            };
            if let Some(compiled) = self.compiled_function_name(&assign.value) {
                self.call_site_kinds
                    .compiled_aliases
                    .insert(target.id.as_str().to_owned(), compiled);
            }
        }
    }

    /// `name = torch.compile(fn, ...)` inside a function: a local compiled alias.
    pub(crate) fn note_compiled_alias(&mut self, target: &Expr, value: &Expr) {
        let Expr::Name(target) = target else { return };
        if !matches!(value, Expr::Call(_)) {
            return;
        }
        let Some(func) = self.current_function() else {
            return;
        };
        if let Some(compiled) = self.compiled_function_name(value) {
            self.call_site_kinds
                .local_aliases
                .insert((func, target.id.as_str().to_owned()), compiled);
        }
    }

    /// At a `def`: keep it, so that a compiled call site can ask whether calling it builds a
    /// generator (`is_generator_function`).
    pub(crate) fn note_function_def(&mut self, idx: FuncIdx, def: &'a ast::StmtFunctionDef) {
        self.call_site_kinds.function_defs.insert(idx, def);
    }

    /// The module's statements, as [`SemanticModel::note_module_body`] saw them.
    pub(super) fn module_body(&self) -> &'a [Stmt] {
        self.call_site_kinds.module_body
    }

    /// `torch.compile(fn, ...)`, or `torch._dynamo.optimize(backend)(fn)` (Dynamo's own entry
    /// point, `calls::DYNAMO_COMPILE_DECORATORS`), with `fn` a name: the name.
    fn compiled_function_name(&self, expr: &Expr) -> Option<String> {
        let Expr::Call(call) = expr else { return None };
        let Some(Expr::Name(target)) = call.arguments.args.first() else {
            return None;
        };
        if let Expr::Call(factory) = &*call.func {
            return match self.resolve(&factory.func) {
                Some(Sym::Dotted(q))
                    if super::calls::DYNAMO_COMPILE_DECORATORS.contains(&q.as_str()) =>
                {
                    Some(target.id.as_str().to_owned())
                }
                _ => None,
            };
        }
        match self.resolve(&call.func) {
            Some(Sym::Dotted(q)) if q == "torch.compile" => Some(target.id.as_str().to_owned()),
            _ => None,
        }
    }

    /// A call that runs a compiled function of this file: record the kinds of its arguments.
    pub(crate) fn note_compiled_call(&mut self, call: &'a ast::ExprCall, callee: Option<&Sym>) {
        let compiled = match (&*call.func, callee) {
            (_, Some(Sym::Local(qual))) => {
                self.summary
                    .function_by_name
                    .get(qual)
                    .copied()
                    .filter(|idx| {
                        self.summary.functions[*idx as usize]
                            .compile_decorator
                            .is_some()
                    })
            }
            (Expr::Call(_), _) => self
                .compiled_function_name(&call.func)
                .and_then(|name| self.local_function(&name)),
            (Expr::Name(name), None)
                if !self.call_site_kinds.local_aliases.is_empty()
                    && self.current_function().is_some_and(|func| {
                        self.call_site_kinds
                            .local_aliases
                            .contains_key(&(func, name.id.as_str().to_owned()))
                    }) =>
            {
                let func = self.current_function().unwrap_or_default();
                self.call_site_kinds
                    .local_aliases
                    .get(&(func, name.id.as_str().to_owned()))
                    .cloned()
                    .and_then(|target| self.local_function(&target))
            }
            (Expr::Name(name), None) if !self.call_site_kinds.compiled_aliases.is_empty() => {
                let id = name.id.as_str();
                let shadowed = self
                    .function_frame()
                    .is_some_and(|f| f.locals.contains_key(id) || f.bindings.contains_key(id));
                match shadowed {
                    true => None,
                    false => self
                        .call_site_kinds
                        .compiled_aliases
                        .get(id)
                        .cloned()
                        .and_then(|target| self.local_function(&target)),
                }
            }
            _ => None,
        };
        let Some(func) = compiled else { return };
        self.note_compiled_tensor_args(func, call);
        let params = self.summary.functions[func as usize].index_params.clone();
        let mut passed: Vec<(String, &Expr)> = Vec::new();
        for (position, arg) in call.arguments.args.iter().enumerate() {
            if matches!(arg, Expr::Starred(_)) {
                break;
            }
            let Some((param, _)) = params.iter().find(|(_, p)| *p == Some(position as u32)) else {
                continue;
            };
            passed.push((param.clone(), arg));
        }
        for keyword in &call.arguments.keywords {
            if let Some(arg) = &keyword.arg
                && params.iter().any(|(name, _)| name == arg.id.as_str())
            {
                passed.push((arg.id.as_str().to_owned(), &keyword.value));
            }
        }
        let mut found = Vec::with_capacity(passed.len());
        for (param, arg) in passed {
            self.bind_compiled_param(func, &param, arg);
            found.push((param, self.argument_kind(arg)));
        }
        for (param, kind) in found {
            if kind != ArgKinds::default() {
                let slot = self.call_site_kinds.kinds.entry((func, param)).or_default();
                *slot = slot.union(kind);
            }
        }
    }

    /// A function of this file by the name the call site uses.
    fn local_function(&self, name: &str) -> Option<FuncIdx> {
        match self.sym_of_name(name) {
            Some(Sym::Local(qual)) => self.summary.function_by_name.get(&qual).copied(),
            _ => None,
        }
    }

    fn argument_kind(&self, arg: &Expr) -> ArgKinds {
        match arg {
            Expr::NumberLiteral(_)
            | Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_) => ArgKinds::CONSTANT,
            Expr::Call(call) => {
                if ITERATOR_BUILTINS
                    .iter()
                    .any(|builtin| self.is_builtin(&call.func, builtin))
                {
                    return ArgKinds::BUILTIN_ITERATOR;
                }
                if let Expr::Attribute(attribute) = &*call.func
                    && matches!(attribute.attr.id.as_str(), "items" | "values")
                    && call.arguments.is_empty()
                    && !matches!(self.resolve(&attribute.value), Some(Sym::Dotted(_)))
                {
                    return ArgKinds::BUILTIN_ITERATOR;
                }
                match self.resolve(&call.func) {
                    Some(Sym::Local(qual)) if self.is_uninitialized_module_class(&qual) => {
                        ArgKinds::UNINITIALIZED_MODULE
                    }
                    Some(Sym::Local(qual)) if self.is_generator_function(&qual) => {
                        self.generator_call_kind(&qual)
                    }
                    Some(Sym::Local(qual)) if self.is_context_manager_class(&qual) => {
                        ArgKinds::CONTEXT_MANAGER
                    }
                    Some(Sym::Dotted(qualified))
                        if TORCH
                            .generated
                            .input_context_managers
                            .on_every_from(&qualified, self.torch_floor())
                            .is_some() =>
                    {
                        ArgKinds::CONTEXT_MANAGER
                    }
                    _ => ArgKinds::default(),
                }
            }
            Expr::Generator(_) => ArgKinds::GENERATOR,
            Expr::List(list) if self.all_tensors(&list.elts) => ArgKinds::TENSOR_LIST,
            Expr::Name(name) => match self.resolve(arg) {
                Some(Sym::Local(qual)) => {
                    let disabled = self
                        .summary
                        .function_by_name
                        .get(&qual)
                        .map(|idx| &self.summary.functions[*idx as usize])
                        .is_some_and(|f| f.disabled && !f.disabled_frame_only);
                    match disabled {
                        true => ArgKinds::DISABLED_FUNCTION,
                        false => ArgKinds::default(),
                    }
                }
                None if self.current_function().is_none()
                    && self.module_list_of_tensors(name.id.as_str()) =>
                {
                    ArgKinds::TENSOR_LIST
                }
                // `ctx = torch.no_grad()` / `gen = make()` in the calling scope, then `opt(ctx)`.
                None => match self.scope_value(name.id.as_str()) {
                    Some(value @ (Expr::Call(_) | Expr::Generator(_))) => ArgKinds(
                        self.argument_kind(value).0
                            & (ArgKinds::GENERATOR.0 | ArgKinds::CONTEXT_MANAGER.0),
                    ),
                    _ => ArgKinds::default(),
                },
                _ => ArgKinds::default(),
            },
            _ => ArgKinds::default(),
        }
    }

    fn all_tensors(&self, elements: &[Expr]) -> bool {
        !elements.is_empty()
            && elements
                .iter()
                .all(|e| self.tensor_kind(e) == TensorKind::Tensor)
    }

    /// What `name` was last assigned in the current function, or, at module level, the one value
    /// the module binds it to.
    fn scope_value(&self, name: &str) -> Option<&'a Expr> {
        if self.current_function().is_some() {
            return self.local_value(name);
        }
        self.module_single_value(name)
    }

    /// The value of the module's one `name = value` statement (top level or a top-level `if`),
    /// when it has exactly one.
    pub(super) fn module_single_value(&self, name: &str) -> Option<&'a Expr> {
        let mut bound =
            module_statements(self.call_site_kinds.module_body).filter_map(|stmt| match stmt {
                Stmt::Assign(assign) => match assign.targets.as_slice() {
                    [Expr::Name(target)] if target.id.as_str() == name => Some(&*assign.value),
                    _ => None,
                },
                _ => None,
            });
        match (bound.next(), bound.next()) {
            (Some(value), None) => Some(value),
            _ => None,
        }
    }

    /// The one call the module binds `name` to (`registry = Registry()`), if it binds it once.
    pub(super) fn module_constructor_value(&self, name: &str) -> Option<&'a Expr> {
        self.call_site_kinds
            .module_calls
            .get(name)
            .copied()
            .flatten()
    }

    /// What calling a generator function of this file returns: a generator when it has no
    /// decorator, the context manager `@contextlib.contextmanager` wraps it in, and nothing known
    /// under any other decorator (which may return anything).
    fn generator_call_kind(&self, qual: &str) -> ArgKinds {
        let Some(&idx) = self.summary.function_by_name.get(qual) else {
            return ArgKinds::default();
        };
        match &*self.summary.functions[idx as usize].decorators {
            [] => ArgKinds::GENERATOR,
            [Sym::Dotted(decorator)] if decorator == "contextlib.contextmanager" => {
                ArgKinds::CONTEXT_MANAGER
            }
            _ => ArgKinds::default(),
        }
    }

    /// A function of this file whose own body yields (a nested function's `yield` is its own).
    fn is_generator_function(&self, qual: &str) -> bool {
        let Some(def) = self
            .summary
            .function_by_name
            .get(qual)
            .and_then(|idx| self.call_site_kinds.function_defs.get(idx))
        else {
            return false;
        };
        crate::semantic::own_scope::any_in_own_scope(&def.body, |expr| {
            matches!(expr, Expr::Yield(_) | Expr::YieldFrom(_))
        })
    }

    /// A class of this file that defines `__enter__` or inherits it from a class of this file
    /// (a base from elsewhere is not looked up: unknown, so not claimed).
    pub(super) fn is_context_manager_class(&self, qual: &str) -> bool {
        self.defines_through_local_bases(qual, "__enter__", 0)
    }

    /// `qual` or one of its bases defined in this file has a method `name` in its body.
    fn defines_through_local_bases(&self, qual: &str, name: &str, depth: u32) -> bool {
        if depth > 8 {
            return false;
        }
        if self
            .summary
            .function_by_name
            .contains_key(&format!("{qual}.{name}"))
        {
            return true;
        }
        self.class_bases(qual).iter().any(|base| match base {
            Sym::Local(base) => self.defines_through_local_bases(base, name, depth + 1),
            _ => false,
        })
    }

    /// The module binds `name` once, to a list literal of tensors.
    fn module_list_of_tensors(&self, name: &str) -> bool {
        match self.module_single_value(name) {
            Some(Expr::List(list)) => self.all_tensors(&list.elts),
            _ => false,
        }
    }

    /// A module-level class of this file deriving from a torch `nn` class whose own `__init__`
    /// never calls a base `__init__` (`super().__init__()`, `Base.__init__(self)`): calling an
    /// instance finds no `Module` state.
    fn is_uninitialized_module_class(&self, qual: &str) -> bool {
        let Some(class) = self
            .call_site_kinds
            .module_body
            .iter()
            .find_map(|stmt| match stmt {
                Stmt::ClassDef(class) if class.name.id.as_str() == qual => Some(class),
                _ => None,
            })
        else {
            return false;
        };
        let torch_nn_base = class.arguments.as_ref().is_some_and(|arguments| {
            arguments.args.iter().any(|base| {
                matches!(self.resolve(base), Some(Sym::Dotted(q))
                    if q.starts_with("torch.nn.") && !q.starts_with("torch.nn.functional"))
            })
        });
        if !torch_nn_base {
            return false;
        }
        let init = class.body.iter().find_map(|stmt| match stmt {
            Stmt::FunctionDef(def) if def.name.id.as_str() == "__init__" => Some(def),
            _ => None,
        });
        // No `__init__` of its own: the base's runs.
        let Some(init) = init else { return false };
        let (Some(first), Some(last)) = (init.body.first(), init.body.last()) else {
            return false;
        };
        // Any mention of `__init__` in the body may run a base's: only a body with none is
        // certainly uninitialized.
        !self
            .text(TextRange::new(first.start(), last.end()))
            .contains("__init__")
    }

    /// The kinds the compiled call sites seen in the file pass to `param` of `func`.
    pub fn call_site_argument_kinds(&self, func: FuncIdx, param: &str) -> ArgKinds {
        self.call_site_kinds
            .kinds
            .get(&(func, param.to_owned()))
            .copied()
            .unwrap_or_default()
    }

    /// `expr` is a parameter of the function being visited that it has not rebound: the
    /// function and the parameter's name.
    pub fn unchanged_parameter<'e>(&self, expr: &'e Expr) -> Option<(FuncIdx, &'e str)> {
        let Expr::Name(name) = expr else { return None };
        let frame = self.function_frame()?;
        let FrameKind::Function { idx, .. } = frame.kind else {
            return None;
        };
        let id = name.id.as_str();
        frame.is_unrebound_param(id).then_some((idx, id))
    }
}
