//! Calls: the call edges of the file summary (direct, dispatched through dicts, instances, host-index
//! arguments) and returned callables.

use super::*;
use crate::semantic::summary::SelfAttrArg;

/// Dynamo's compile entry points that take the backend, not the function, and return a decorator
/// that compiles what it is applied to (`torch._dynamo.optimize("eager")(fn)`,
/// `@torch._dynamo.optimize(counter)`): present from torch 2.0 to 2.11
/// (tests/python/test_reach_proofs.py checks them against the installed torch).
pub(crate) const DYNAMO_COMPILE_DECORATORS: &[&str] =
    &["torch._dynamo.optimize", "torch._dynamo.optimize_assert"];

impl<'a> SemanticModel<'a> {
    /// Call-graph edges and `torch.compile(x)` / `x.compile()` targets.
    pub(crate) fn record_call(&mut self, call: &'a ast::ExprCall, callee: Option<&Sym>) {
        self.note_tensor_attribute_registration(call);
        self.note_dynamic_import(call);
        self.note_option_args(call);
        self.note_compiled_call(call, callee);
        let func = self.current_function();
        if self.ctx.type_flow {
            self.flow_call(call, 0);
        }
        // `torch.compile(backend=...)(fn)`: called without a model, torch.compile returns a
        // decorator, and calling that compiles its argument like `torch.compile(fn, ...)`.
        // Dynamo's own entry points (`torch._dynamo.optimize(backend)(fn)`) always return one.
        if let Expr::Call(factory) = &*call.func
            && let Some(Sym::Dotted(q)) = self.resolve(&factory.func)
            && let Some(form) = if q == "torch.compile" && factory.arguments.args.is_empty() {
                Some(CompileForm::TorchCompile)
            } else if DYNAMO_COMPILE_DECORATORS.contains(&q.as_str()) {
                Some(CompileForm::DynamoOptimize)
            } else {
                None
            }
        {
            let fullgraph = passes_fullgraph(factory);
            if let Some(target) = call.arguments.args.first() {
                self.note_flow_compile_target(target, false, fullgraph);
                if let Some(sym) = self.instance_sym(target) {
                    self.summary.compile_roots.push(CompileTarget {
                        sym,
                        form,
                        fullgraph,
                    });
                }
            }
            return;
        }
        if let Some(Sym::Dotted(qualified)) = callee
            && qualified == "torch.compile"
        {
            let fullgraph = passes_fullgraph(call);
            if let Some(target) = call.arguments.args.first() {
                self.note_flow_compile_target(target, false, fullgraph);
            }
            if let Some(target) = call.arguments.args.first()
                && let Some(sym) = self.instance_sym(target)
            {
                self.summary.compile_roots.push(CompileTarget {
                    sym,
                    form: CompileForm::TorchCompile,
                    fullgraph,
                });
            }
            return;
        }
        if let Expr::Attribute(attribute) = &*call.func
            && attribute.attr.id.as_str() == "compile"
            && call.arguments.args.is_empty()
        {
            let fullgraph = passes_fullgraph(call);
            self.note_flow_compile_target(&attribute.value, true, fullgraph);
            if let Some(sym) = self.instance_sym(&attribute.value) {
                self.summary.compile_roots.push(CompileTarget {
                    sym,
                    form: CompileForm::ModuleMethod,
                    fullgraph,
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
            let mut edge = self.call_edge(target, call);
            // `checkpoint(fn, x, ...)` calls `fn(x, ...)`: the arguments after `fn` bind its
            // parameters from the first.
            edge.tensor_args = edge
                .tensor_args
                .iter()
                .filter(|arg| arg.position != Some(0))
                .map(|arg| TensorArg {
                    position: arg.position.map(|at| at - 1),
                    ..arg.clone()
                })
                .collect();
            self.summary.functions[func as usize].calls.push(edge);
            return;
        }
        if let Some(Sym::Dotted(qualified)) = callee
            && let Some(positions) = crate::semantic::data::hop_body_positions(qualified)
        {
            // `torch.cond(pred, true_fn, false_fn, ops)`: Dynamo traces each branch as the body
            // of a higher-order op, so a branch is called from here like a direct call.
            for &position in positions {
                if let Some(body) = call.arguments.args.get(position)
                    && let Some(target @ (Sym::Local(_) | Sym::SelfAttr { .. } | Sym::Dotted(_))) =
                        self.resolve(body)
                {
                    if crate::semantic::data::COND_SPELLINGS.contains(&qualified.as_str()) {
                        self.summary.cond_branch_sites.push(CallSite {
                            func,
                            callee: target.clone(),
                            location: self.location(call.start().into()),
                            end_location: self.location(call.end().into()),
                            path: self.path().to_vec(),
                        });
                    }
                    let mut edge = self.call_edge(target, call);
                    // The branch's operands come packed in a tuple, not by position.
                    edge.tensor_args = Box::default();
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
                None => {
                    self.note_param_call(call);
                    return;
                }
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

    /// How many project call sites the file has recorded so far.
    pub(crate) fn project_call_sites(&self) -> usize {
        self.summary.call_sites.len()
    }

    /// The project call site recorded after the first `before` ones, if the last call added
    /// one: its function and the index of its edge in that function's `calls`.
    pub(crate) fn project_call_site_since(&self, before: usize) -> Option<(FuncIdx, u32)> {
        (self.summary.call_sites.len() > before)
            .then(|| self.summary.call_sites.last())
            .flatten()
            .map(|site| (site.func, site.call))
    }

    /// The edge of a call to `sym` at the current path; its arguments are kept only when roots
    /// are configured (flag and argument facts at the root's calls).
    pub(super) fn call_edge(&self, sym: Sym, call: &ast::ExprCall) -> CallEdge {
        CallEdge {
            sym,
            path: self.path.as_slice().into(),
            row: self.row(call.start().into()),
            args: self.ctx.roots_configured.then(|| {
                let mut args = call_args(&call.arguments);
                args.self_attrs = self.self_attr_args(&call.arguments);
                Box::new(args)
            }),
            host_index_args: self.host_index_args(&call.arguments),
            tensor_args: self.tensor_args(&call.arguments),
        }
    }

    /// The arguments that are `self.<attr>` of the method making the call (`f(x, self.mode)`,
    /// `f(x, mode=self.mode)`), up to the first `*` spread.
    fn self_attr_args(&self, arguments: &ast::Arguments) -> Box<[SelfAttrArg]> {
        let attr_of = |value: &Expr| {
            matches!(value, Expr::Attribute(_))
                .then(|| self.self_attribute(value))
                .flatten()
                .map(|(_, attr)| attr)
        };
        let mut out = Vec::new();
        for (position, argument) in arguments.args.iter().enumerate() {
            if matches!(argument, Expr::Starred(_)) {
                break;
            }
            if let Some(attr) = attr_of(argument) {
                out.push(SelfAttrArg {
                    position: Some(position as u32),
                    keyword: None,
                    attr,
                });
            }
        }
        for keyword in arguments.keywords.iter() {
            let Some(name) = &keyword.arg else { continue };
            if let Some(attr) = attr_of(&keyword.value) {
                out.push(SelfAttrArg {
                    position: None,
                    keyword: Some(name.id.as_str().to_owned()),
                    attr,
                });
            }
        }
        out.into()
    }

    /// The arguments of a project call that may hold host values (host indices).
    pub(super) fn host_index_args(&self, arguments: &ast::Arguments) -> Box<[IndexArg]> {
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
                    keyword: Some(name.id.as_str().to_owned()),
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
    pub(super) fn type_comment_kinds(
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
    pub(super) fn project_param_classes(&self, def: &ast::StmtFunctionDef) -> FxMap<String, Sym> {
        let mut classes = FxMap::default();
        for param in def.parameters.iter_non_variadic_params() {
            let Some(annotation) = param.parameter.annotation.as_deref() else {
                continue;
            };
            match self.annotation_class(annotation) {
                Some(sym @ Sym::Local(_)) => {
                    classes.insert(param.parameter.name.id.as_str().to_owned(), sym);
                }
                Some(Sym::Dotted(dotted)) if self.is_project_dotted(&dotted) => {
                    classes.insert(
                        param.parameter.name.id.as_str().to_owned(),
                        Sym::Dotted(dotted),
                    );
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
    pub(super) fn dispatch_call(&self, dict: &Expr) -> Vec<Sym> {
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
    pub(super) fn dispatch_callees(&self, dict: &ast::ExprDict) -> Vec<Sym> {
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
    pub(super) fn lookup_is_module_level(&self, name: &str) -> bool {
        self.function_frame().is_none_or(|frame| {
            !frame.bindings.contains_key(name) && !frame.values.contains_key(name)
        })
    }

    /// A call on an instance built in this function: `loss_fn(x)` / `loss_fn.compute(x)` after
    /// `loss_fn = Loss()`, or `Loss()(x)` — the class's `__call__` (or method) when linking.
    pub(super) fn instance_call(&self, call: &ast::ExprCall) -> Option<Sym> {
        let (class, method) = match &*call.func {
            Expr::Attribute(attribute) if matches!(&*attribute.value, Expr::Name(_)) => (
                self.instance_class(&attribute.value)?,
                attribute.attr.id.as_str(),
            ),
            Expr::Attribute(_) => return None,
            receiver => (self.instance_class(receiver)?, "__call__"),
        };
        Some(Sym::Instance {
            class: Box::new(class),
            method: method.to_owned(),
        })
    }

    /// The project class an expression is an instance of: a constructor call `Cls(...)`, a
    /// local built by one, a parameter annotated with a project class, or a name the function
    /// reads from an enclosing function or the module that is bound there to `Cls(...)`.
    pub(super) fn instance_class(&self, expr: &Expr) -> Option<Sym> {
        let constructor_class = |expr: &Expr| -> Option<Sym> {
            let Expr::Call(constructor) = expr else {
                return None;
            };
            if !self.may_resolve_to_project(&constructor.func) {
                return None;
            }
            match self.resolve(&constructor.func)? {
                sym @ Sym::Local(_) => Some(sym),
                Sym::Dotted(dotted) if self.is_project_dotted(&dotted) => Some(Sym::Dotted(dotted)),
                _ => None,
            }
        };
        match expr {
            Expr::Name(name) => {
                let name = name.id.as_str();
                self.local_value(name)
                    .and_then(constructor_class)
                    .or_else(|| {
                        self.function_frame()
                            .filter(|frame| frame.holds_callers_value(name))
                            .and_then(|frame| frame.param_classes.get(name).cloned())
                    })
                    .or_else(|| self.outer_value(name).and_then(constructor_class))
            }
            constructor @ Expr::Call(_) => constructor_class(constructor),
            _ => None,
        }
    }

    /// The value a function reads under `name` from an enclosing scope (Python's closure and
    /// global lookup): the nearest enclosing function that has assigned it so far, else the one
    /// `Cls(...)` the module binds it to (`model/call_site_kinds.rs`). `None` when the function
    /// itself binds the name (a local, a parameter, a definition or import) or a scope between
    /// binds it otherwise.
    pub(super) fn outer_value(&self, name: &str) -> Option<&'a Expr> {
        let module_value = self.module_constructor_value(name);
        let mut functions = self
            .frames
            .iter()
            .rev()
            .filter(|frame| matches!(frame.kind, FrameKind::Function { .. }));
        let binds = |frame: &Frame<'a>| {
            frame.bindings.contains_key(name)
                || frame.values.contains_key(name)
                || frame.param_names.iter().any(|p| p == name)
        };
        let current = functions.next()?;
        let mut enclosing = functions.peekable();
        // Most names are neither a module instance nor read from an enclosing function.
        if module_value.is_none() && enclosing.peek().is_none() {
            return None;
        }
        if binds(current) {
            return None;
        }
        for frame in enclosing {
            if let Some(value) = frame.values.get(name) {
                return Some(value);
            }
            if binds(frame) {
                return None;
            }
        }
        module_value
    }

    /// What a compile target names: a function or class directly, `self.attr` (typed when
    /// linking from `self.attr = Cls(...)`), or a local assigned `Cls(...)`.
    pub(super) fn instance_sym(&self, target: &Expr) -> Option<Sym> {
        if let Expr::Name(name) = target
            && let Some(Expr::Call(call)) = self.local_value(name.id.as_str())
        {
            return self.resolve(&call.func);
        }
        self.resolve(target)
    }
}

/// A compile call or decorator that passes `fullgraph=True` (`torch._dynamo.optimize`'s
/// `nopython=True`): Dynamo then raises instead of breaking, and from torch 2.11 captures scalar
/// reads (`rules/data/scalar_reads.toml`).
pub(crate) fn passes_fullgraph(call: &ast::ExprCall) -> bool {
    ["fullgraph", "nopython"].iter().any(|name| {
        matches!(
            call.arguments.find_keyword(name).map(|k| &k.value),
            Some(Expr::BooleanLiteral(b)) if b.value
        )
    })
}
