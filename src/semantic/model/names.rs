//! Names and bindings: what a name, an import or an attribute chain in this file refers to, and the
//! flag/none parameters guards are evaluated against.

use super::*;

impl<'a> SemanticModel<'a> {
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
                    self.note_context_manager_def(stmt);
                    let name = def.name.id.as_str().to_owned();
                    self.module_bindings
                        .entry(name.clone())
                        .or_insert(Binding::Def(name));
                }
                Stmt::ClassDef(class) => {
                    self.note_context_manager_def(stmt);
                    let name = class.name.id.as_str().to_owned();
                    self.module_bindings
                        .entry(name.clone())
                        .or_insert(Binding::Class(name));
                }
                Stmt::AnnAssign(assign) => {
                    // `TensorLike: TypeAlias = torch.Tensor`.
                    if let (Expr::Name(target), Some(value)) = (&*assign.target, &assign.value) {
                        self.note_tensor_alias(target.id.as_str(), value);
                    }
                }
                Stmt::Assign(assign) => {
                    if let [Expr::Name(target)] = assign.targets.as_slice() {
                        self.note_tensor_alias(target.id.as_str(), &assign.value);
                        if target.id.as_str() == "__all__" {
                            self.summary.flow.all = typeflow::literal_names(&assign.value);
                        }
                        if let Expr::Dict(dict) = &*assign.value {
                            self.module_dicts
                                .insert(target.id.as_str().to_owned(), dict);
                        }
                        self.note_version_flag(target.id.as_str(), &assign.value);
                        self.note_torch_version_name(target.id.as_str(), &assign.value);
                        let binding = self.binding_for_value(&assign.value);
                        self.module_bindings
                            .entry(target.id.as_str().to_owned())
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
    pub(super) fn binding_for_value(&self, value: &Expr) -> Binding {
        if let Some(cond) = self.predicate_reference(value) {
            return Binding::Predicate(cond);
        }
        match self.resolve(value) {
            Some(Sym::Dotted(target)) if matches!(value, Expr::Attribute(_) | Expr::Name(_)) => {
                Binding::Import(target)
            }
            // `square = Square.apply`, `step = Runner.step`: an alias of a member of a class of
            // this module, read by its full name so that other files can import it too.
            Some(Sym::Local(member))
                if matches!(value, Expr::Attribute(_)) && member.contains('.') =>
            {
                Binding::Import(format!("{}.{member}", self.summary.module))
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
    pub(super) fn plain_predicate_reference(&self, value: &Expr) -> Option<Cond> {
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
                let bound = alias
                    .asname
                    .as_ref()
                    .unwrap_or(&alias.name)
                    .id
                    .as_str()
                    .to_owned();
                let target = if base.is_empty() {
                    alias.name.id.as_str().to_owned()
                } else {
                    format!("{base}.{}", alias.name.id)
                };
                (bound, target)
            })
            .collect()
    }

    /// `name = <annotation>` at module level naming a tensor or an optional tensor: a type alias.
    fn note_tensor_alias(&mut self, name: &str, value: &Expr) {
        if matches!(
            value,
            Expr::Subscript(_) | Expr::Name(_) | Expr::Attribute(_) | Expr::BinOp(_)
        ) && (self.annotation_kind(value) == TensorKind::Tensor
            || self.is_optional_tensor_annotation(value))
        {
            self.summary.tensor_aliases.push(name.to_owned());
        }
    }

    /// Records the dotted names an import statement (at any depth) names.
    pub(crate) fn note_imported_names(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    self.summary
                        .imported_names
                        .push(alias.name.id.as_str().to_owned());
                }
            }
            Stmt::ImportFrom(import) => {
                let module = self.import_from_module(import);
                for alias in &import.names {
                    let name = alias.name.id.as_str();
                    self.summary.imported_names.push(if name == "*" {
                        module.clone()
                    } else if module.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{module}.{name}")
                    });
                }
            }
            _ => {}
        }
    }

    /// `importlib.import_module("pkg._impl")`, `import_module(".impl", __package__)` or
    /// `__import__("pkg._impl")` with a literal name imports that module as an `import`
    /// statement does (a private module loaded only so is still used).
    pub(crate) fn note_dynamic_import(&mut self, call: &ast::ExprCall) {
        let Some(Expr::StringLiteral(name)) = call.arguments.args.first() else {
            return;
        };
        let is_import_module = self
            .qualified(&call.func)
            .is_some_and(|q| q.as_str() == "importlib.import_module");
        if !is_import_module && !self.is_builtin(&call.func, "__import__") {
            return;
        }
        let name = name.value.to_str();
        let relative = name.len() - name.trim_start_matches('.').len();
        if relative == 0 {
            self.summary.imported_names.push(name.to_owned());
            return;
        }
        // Relative: against `package=` (the second argument of `import_module`), when it is this
        // module's package (`__package__`, or `__name__` of a package's `__init__`) or a literal.
        if !is_import_module {
            return;
        }
        let package = match call
            .arguments
            .args
            .get(1)
            .or_else(|| call.arguments.find_keyword("package").map(|k| &k.value))
        {
            Some(Expr::StringLiteral(package)) => package.value.to_str().to_owned(),
            Some(Expr::Name(n)) if n.id.as_str() == "__package__" => self.package.clone(),
            Some(Expr::Name(n)) if n.id.as_str() == "__name__" && self.ctx.is_package_init => {
                self.package.clone()
            }
            _ => return,
        };
        let module = relative_module(&package, relative as u32, name.trim_start_matches('.'));
        self.summary.imported_names.push(module);
    }

    pub fn import_from_module(&self, import: &ast::StmtImportFrom) -> String {
        let module = import.module.as_ref().map(|m| m.id.as_str()).unwrap_or("");
        if import.level == 0 {
            return module.to_owned();
        }
        relative_module(&self.package, import.level, module)
    }

    pub(super) fn lookup(&self, name: &str) -> Option<&Binding> {
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

    pub(super) fn sym_of_name(&self, name: &str) -> Option<Sym> {
        match self.lookup(name)? {
            Binding::Import(target) => Some(Sym::Dotted(target.clone())),
            Binding::Def(qual) | Binding::Class(qual) => Some(Sym::Local(qual.clone())),
            Binding::Predicate(_) => Some(Sym::Local(name.to_owned())),
            Binding::Other => None,
        }
    }

    /// Resolves a name or attribute chain as far as this file can.
    pub fn resolve(&self, expr: &Expr) -> Option<Sym> {
        // Find the chain's root and count its attributes first: the strings are built (once,
        // at their final size) only for a chain that resolves, without a buffer of segments.
        let mut current = expr;
        let mut count = 0usize;
        let mut bytes = 0usize;
        let mut first_attr = "";
        loop {
            match current {
                Expr::Attribute(attribute) => {
                    count += 1;
                    bytes += attribute.attr.id.len() + 1;
                    first_attr = attribute.attr.id.as_str();
                    current = &attribute.value;
                }
                Expr::Name(name) => {
                    if let Some((self_name, class)) = self.method_context()
                        && name.id.as_str() == self_name
                        && count > 0
                    {
                        let mut attr = String::with_capacity(bytes);
                        push_attrs(expr, &mut attr);
                        attr.remove(0);
                        return Some(Sym::SelfAttr {
                            class: class.to_owned(),
                            attr,
                        });
                    }
                    let dotted = |base: &str| {
                        let mut out = String::with_capacity(base.len() + bytes);
                        out.push_str(base);
                        push_attrs(expr, &mut out);
                        out
                    };
                    return match self.lookup(name.id.as_str())? {
                        Binding::Import(target) => Some(Sym::Dotted(dotted(target))),
                        Binding::Def(qual) | Binding::Class(qual) => Some(Sym::Local(dotted(qual))),
                        Binding::Predicate(_) => Some(Sym::Local(dotted(name.id.as_str()))),
                        Binding::Other => None,
                    };
                }
                Expr::Call(call) if count == 1 && self.is_builtin(&call.func, "super") => {
                    let (_, class) = self.method_context()?;
                    return Some(Sym::SuperAttr {
                        class: class.to_owned(),
                        attr: first_attr.to_owned(),
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

    /// Whether `resolve(expr)` can be a `Sym::Local` or a project `Sym::Dotted`, decided before
    /// any string is built: only a chain rooted in a name bound to a definition, a class, a
    /// predicate or an import of a project module resolves to one. `self.proj(h)`, locals and
    /// library calls (`torch.zeros(...)`) are the common case on hot paths and do not.
    pub(super) fn may_resolve_to_project(&self, expr: &Expr) -> bool {
        let mut root = expr;
        let mut chained = false;
        while let Expr::Attribute(attribute) = root {
            root = &attribute.value;
            chained = true;
        }
        let Expr::Name(name) = root else {
            return false;
        };
        if chained
            && self
                .method_context()
                .is_some_and(|(self_name, _)| self_name == name.id.as_str())
        {
            return false;
        }
        match self.lookup(name.id.as_str()) {
            Some(Binding::Import(target)) => {
                self.is_project_dotted(target.split('.').next().unwrap_or(target))
            }
            Some(Binding::Def(_) | Binding::Class(_) | Binding::Predicate(_)) => true,
            Some(Binding::Other) | None => false,
        }
    }

    /// Is `name` a parameter of the current function with a falsy literal default, not
    /// reassigned so far?
    pub(super) fn is_flag_param(&self, name: &str) -> bool {
        let (Some(frame), Some(func)) = (self.function_frame(), self.current_function()) else {
            return false;
        };
        frame.holds_callers_value(name)
            && self.summary.functions[func as usize]
                .flag_params
                .iter()
                .any(|(flag, _)| flag == name)
    }

    /// Is `name` a parameter of the current function with a `None` default, not reassigned so
    /// far?
    pub(super) fn is_none_flag_param(&self, name: &str) -> bool {
        self.is_flag_param(name)
            && self.current_function().is_some_and(|func| {
                self.summary.functions[func as usize]
                    .none_flags
                    .iter()
                    .any(|flag| flag == name)
            })
    }

    /// `len(args) <op> <int>` where `args` is the current function's `*args`, not reassigned.
    pub(super) fn vararg_len_atom(&self, compare: &ast::ExprCompare) -> Option<Atom> {
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
            || !frame.holds_callers_value(name.id.as_str())
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
    pub(super) fn unchanged_param(&self, name: &str) -> Option<(String, Option<u32>)> {
        let frame = self.function_frame()?;
        if !frame.holds_callers_value(name) {
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
    pub(super) fn is_first_input(&self, name: &str) -> bool {
        self.function_frame().is_some_and(|frame| {
            frame.first_input.as_deref() == Some(name) && frame.holds_callers_value(name)
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

    pub(super) fn function_frame_mut(&mut self) -> Option<&mut Frame<'a>> {
        self.frames
            .iter_mut()
            .rev()
            .find(|f| matches!(f.kind, FrameKind::Function { .. }))
    }

    pub(super) fn function_frame(&self) -> Option<&Frame<'a>> {
        self.frames
            .iter()
            .rev()
            .find(|f| matches!(f.kind, FrameKind::Function { .. }))
    }

    /// Is `name` a parameter or a local of an enclosing function (what a lambda defined here
    /// would hold as a closure variable)?
    pub fn is_enclosing_local(&self, name: &str) -> bool {
        self.frames.iter().any(|frame| {
            matches!(frame.kind, FrameKind::Function { .. })
                && (frame.param_names.iter().any(|p| p == name)
                    || frame.values.contains_key(name)
                    || frame.locals.contains_key(name)
                    || frame.bindings.contains_key(name))
        })
    }

    pub fn is_project_dotted(&self, dotted: &str) -> bool {
        let root = dotted.split('.').next().unwrap_or(dotted);
        self.ctx.project_roots.contains(root)
    }

    // ----- guards ---------------------------------------------------------------------------
}

/// Appends `.attr` for each attribute of the chain `expr`, root first (`a.b.c` → `.b.c`).
/// Recurses once per attribute, as the AST visitor that reached `expr` already did.
fn push_attrs(expr: &Expr, out: &mut String) {
    if let Expr::Attribute(attribute) = expr {
        push_attrs(&attribute.value, out);
        out.push('.');
        out.push_str(attribute.attr.id.as_str());
    }
}

/// The module a relative name (`level` leading dots, then `module`, maybe empty) names from
/// `package`: one dot is the package itself, each further dot its parent.
fn relative_module(package: &str, level: u32, module: &str) -> String {
    let mut parts: Vec<&str> = package.split('.').filter(|p| !p.is_empty()).collect();
    for _ in 1..level {
        parts.pop();
    }
    if !module.is_empty() {
        parts.push(module);
    }
    parts.join(".")
}
