//! Statements that change the model: classes, assignments, imports, `try`, loops, `self.<attr>` facts.

use super::tensor_args::visit_target_names;
use super::*;

impl<'a> SemanticModel<'a> {
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
        let name = class.name.id.as_str().to_owned();
        let mut qual = match self.frames.last() {
            Some(frame) => format!("{}.{name}", frame.qual),
            None => name.clone(),
        };
        let idx = self.summary.classes.len() as u32;
        // A second class statement binding the same name in the same scope is another class
        // (`summary::ALTERNATIVE_MARK`): one hash lookup per class statement.
        if let Some(&first) = self.summary.class_by_name.get(&qual) {
            let alternatives = self.summary.class_alternatives.entry(first).or_default();
            alternatives.push(idx);
            qual = format!(
                "{qual}{}{}",
                crate::semantic::summary::ALTERNATIVE_MARK,
                alternatives.len() + 1
            );
        }
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
        self.note_class_markers(class, &qual);
        let fields = self.class_field_defaults(class);
        let is_abstract = self.declares_abstract(class, &bases);
        self.summary.classes.push(ClassInfo {
            qualname: qual.clone(),
            bases,
            decorators,
            fields,
            is_abstract,
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
            value_joins: Default::default(),
            param_classes: FxMap::default(),
            first_input: None,
            param_positions: Vec::new(),
            param_names: Vec::new(),
            param_callables: FxMap::default(),
            param_instances: FxMap::default(),
            body_range: TextRange::default(),
            isinstance_names: std::cell::OnceCell::new(),
            tensor_narrowed_params: Vec::new(),
            param_elements: FxMap::default(),
            returned: FxMap::default(),
            params_untouched_on_a_path: Vec::new(),
            params_rebound_unrecorded: Vec::new(),
        });
    }

    /// An `abc.ABC` base (or `metaclass=ABCMeta`) and an `@abstractmethod` in the body: Python
    /// refuses to instantiate the class. One pass over the body's decorators.
    fn declares_abstract(&self, class: &'a ast::StmtClassDef, bases: &[Sym]) -> bool {
        let abc_base = bases
            .iter()
            .any(|base| matches!(base, Sym::Dotted(name) if name == "abc.ABC"))
            || class.arguments.as_ref().is_some_and(|arguments| {
                arguments.keywords.iter().any(|keyword| {
                    keyword.arg.as_ref().is_some_and(|arg| arg.as_str() == "metaclass")
                        && matches!(self.resolve(&keyword.value), Some(Sym::Dotted(name)) if name == "abc.ABCMeta")
                })
            });
        abc_base
            && class.body.iter().any(|stmt| {
                let Stmt::FunctionDef(def) = stmt else {
                    return false;
                };
                def.decorator_list.iter().any(|decorator| {
                    matches!(self.resolve(&decorator.expression), Some(Sym::Dotted(name)) if name == "abc.abstractmethod")
                })
            })
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
        self.note_returned_locals(targets, value);
        self.forget_untouched_params(targets);
        for target in targets {
            if !matches!(target, Expr::Name(_)) {
                self.note_params_rebound(target);
            }
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
                                    Some((name.id.as_str().to_owned(), self.host_index_deps(value)))
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
                                frame.param_elements.remove(name.id.as_str());
                                let previous = frame
                                    .locals
                                    .insert(name.id.as_str().to_owned(), TensorKind::Unknown);
                                frame.value_joins.forget(
                                    name.id.as_str(),
                                    TensorKind::Unknown,
                                    previous,
                                );
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
        for target in targets {
            if let Expr::Name(name) = target {
                self.note_assigned_class(name.id.as_str(), value);
            }
        }
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
                    let name = name.id.as_str().to_owned();
                    if !frame.bindings.is_empty() {
                        frame.bindings.remove(&name);
                    }
                    if !frame.param_elements.is_empty() {
                        frame.param_elements.remove(&name);
                    }
                    let previous = frame.values.insert(name.clone(), value);
                    let previous_kind = frame.locals.insert(name, kind);
                    if let Expr::Name(target) = *target {
                        frame.value_joins.assigned(
                            target.id.as_str(),
                            value,
                            previous,
                            kind,
                            previous_kind,
                        );
                    }
                }
                Expr::Tuple(tuple) => {
                    for element in &tuple.elts {
                        if let Expr::Name(name) = element {
                            frame.bindings.remove(name.id.as_str());
                            frame.param_elements.remove(name.id.as_str());
                            let previous = frame
                                .locals
                                .insert(name.id.as_str().to_owned(), TensorKind::Unknown);
                            frame.value_joins.forget(
                                name.id.as_str(),
                                TensorKind::Unknown,
                                previous,
                            );
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Parameters `target` rebinds to a value `Frame::values` does not record (an unpacking, a
    /// loop or `with` target, `:=`): from here on they no longer hold what the caller passed.
    pub(crate) fn note_params_rebound(&mut self, target: &Expr) {
        let Some(frame) = self.function_frame_mut() else {
            return;
        };
        if frame.param_names.is_empty() {
            return;
        }
        visit_target_names(target, &mut |id| {
            if frame.param_names.iter().any(|p| p == id) {
                if !frame.params_rebound_unrecorded.iter().any(|p| p == id) {
                    frame.params_rebound_unrecorded.push(id.to_owned());
                }
                // Rebound again after a join left it the caller's value on some path: no more.
                frame.params_untouched_on_a_path.retain(|p| p != id);
            }
        });
    }

    /// A parameter that `targets` rebinds by name is no longer the caller's value on any path
    /// (an unpacking target: `note_params_rebound`).
    fn forget_untouched_params(&mut self, targets: &[&Expr]) {
        let Some(frame) = self.function_frame_mut() else {
            return;
        };
        if frame.params_untouched_on_a_path.is_empty() {
            return;
        }
        for target in targets {
            if let Expr::Name(name) = target {
                frame
                    .params_untouched_on_a_path
                    .retain(|p| p != name.id.as_str());
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
        self.try_body_depth += 1;
        self.feature_probe_depth += u32::from(handlers.probe_errors);
        self.import_probe_depth += u32::from(handlers.import_failure);
    }

    pub(crate) fn leave_try_body(&mut self, handlers: TryHandlers) {
        self.try_body_depth -= 1;
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

    /// Where a graph break cannot resume, so Dynamo skips the whole frame and runs the function
    /// eagerly: inside a `for`/`while` body (a back edge follows the break) or a `try:` body (the
    /// break is inside an exception-table block Dynamo cannot restore). Measured on torch 2.2,
    /// 2.5, 2.8 and 2.11 (Python 3.11): 0 graphs, no break reported, for either. Not a
    /// comprehension (on Python 3.11 its break resumes: 2 graphs). Nor is a `with` block, unless
    /// its context manager is a project or standard-library one (`model/context_managers.rs`).
    pub fn break_skips_frame(&self) -> Option<&'static str> {
        if self.loop_depth > 0 {
            Some("loop")
        } else if self.try_body_depth > 0 {
            Some("`try` block")
        } else if self.unresumable_with_depth > 0 {
            Some("`with` block over a project context manager")
        } else if self.stdlib_with_depth > 0 {
            Some("`with` block over a standard-library context manager")
        } else {
            None
        }
    }

    /// Inside a `for`/`while` body (not a comprehension's element): code that runs once per
    /// iteration of a statement loop.
    pub fn in_loop_body(&self) -> bool {
        self.loop_depth > 0 && self.iteration_depth.get() == 0
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

    /// Where a block that ends on a failure starts being failure-only: after the last statement
    /// that can leave the block another way (a `return`, `break` or `continue` inside it —
    /// `if basis == "a": return f(x)` before a final `raise ValueError(basis)` runs on the
    /// success path). None when the block does not end on a failure. Walks the block's
    /// statements (not expressions) only for such blocks, which are few and short.
    pub(crate) fn failure_only_from(&self, body: &[Stmt]) -> Option<usize> {
        if !self.ends_in_failure(body) {
            return None;
        }
        Some(
            body.iter()
                .rposition(|stmt| may_leave_block(stmt, 0))
                .map_or(0, |last| last + 1),
        )
    }

    /// Is the path to the current statement made only of validations passed (`if bad: raise`
    /// before it, at its function's top level)? Such code runs on every call that returns.
    pub(crate) fn only_validations_on_path(&self) -> bool {
        self.path.iter().all(|step| {
            matches!(step, PathStep::Guard(g, Branch::WhenFalse) if self.validation_guards.contains(g))
        })
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
            if self.failure_only_from(&stmt_if.body) == Some(0)
                && !self.validation_guards.contains(&g)
            {
                self.validation_guards.push(g);
            }
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
        self.note_tensor_attribute_assignment(target, value);
        self.note_cached_attribute_assignment(target, value);
        let Some((class, attr)) = self.self_attribute(target) else {
            return;
        };
        // `self.matcher = matcher`: a module (or callable) the caller injects, class unseen here.
        if let Expr::Name(name) = value
            && self
                .function_frame()
                .is_some_and(|frame| frame.is_unrebound_param(name.id.as_str()))
        {
            self.injected_attrs.insert((class.clone(), attr.clone()));
        }
        // `self.config = config` where the parameter is annotated with a project class, or
        // `self.loss = loss` where the parameter (not rebound since) defaults to `Loss()`.
        if let Expr::Name(name) = value
            && let Some(class_sym) = self.function_frame().and_then(|frame| {
                let param = name.id.as_str();
                frame.param_classes.get(param).or_else(|| {
                    frame
                        .holds_callers_value(param)
                        .then(|| frame.param_instances.get(param))
                        .flatten()
                })
            })
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
        self.note_factory_attribute(&class, &attr, value);
        if let Expr::Call(call) = value
            && let Some(sym) = self.resolve(&call.func)
        {
            if let Some(func) = self.current_function() {
                let builders = self
                    .self_attr_builders
                    .entry((class.clone(), attr.clone()))
                    .or_default();
                if !builders.contains(&func) {
                    builders.push(func);
                }
            }
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
        (base.id.as_str() == self_name)
            .then(|| (class.to_owned(), attribute.attr.id.as_str().to_owned()))
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
}

/// Can `stmt` leave its enclosing block other than by falling through or raising: a `return`,
/// `break` or `continue` anywhere in its nested statements (not in nested definitions)?
/// Over-approximate for a `break` that only leaves an inner loop: fewer failure-only paths.
fn may_leave_block(stmt: &Stmt, depth: u32) -> bool {
    if depth > 32 {
        return true;
    }
    let any = |body: &[Stmt]| body.iter().any(|s| may_leave_block(s, depth + 1));
    match stmt {
        Stmt::Return(_) | Stmt::Break(_) | Stmt::Continue(_) => true,
        Stmt::If(stmt_if) => {
            any(&stmt_if.body) || stmt_if.elif_else_clauses.iter().any(|c| any(&c.body))
        }
        Stmt::For(stmt_for) => any(&stmt_for.body) || any(&stmt_for.orelse),
        Stmt::While(stmt_while) => any(&stmt_while.body) || any(&stmt_while.orelse),
        Stmt::With(with) => any(&with.body),
        Stmt::Try(stmt_try) => {
            any(&stmt_try.body)
                || any(&stmt_try.orelse)
                || any(&stmt_try.finalbody)
                || stmt_try.handlers.iter().any(|h| {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    any(&h.body)
                })
        }
        Stmt::Match(stmt_match) => stmt_match.cases.iter().any(|c| any(&c.body)),
        _ => false,
    }
}
