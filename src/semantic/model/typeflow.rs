//! Collects a file's type-flow facts (`semantic/typeflow`) during the one walk: assignments,
//! loops, comprehensions, returns, calls with their arguments, `torch.compile` targets. The facts
//! are evaluated only when linking, over all files at once.

use super::{Binding, FrameKind, MAX_EXPR_DEPTH, SemanticModel};
use crate::semantic::Sym;
use crate::semantic::summary::FuncIdx;
use crate::semantic::typeflow::{FlowCall, FlowCompileTarget, Place, ScopeFlow, ValueExpr};
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

/// Builtins whose result holds what their arguments hold (containers and iteration helpers).
const PASS_THROUGH_BUILTINS: &[&str] = &[
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
    "iter",
    "next",
    "reversed",
    "sorted",
    "enumerate",
    "zip",
    "filter",
];

/// Builtins that never hand back a project object.
const OPAQUE_BUILTINS: &[&str] = &[
    "isinstance",
    "issubclass",
    "len",
    "print",
    "range",
    "int",
    "float",
    "bool",
    "str",
    "repr",
    "hasattr",
    "setattr",
    "callable",
    "min",
    "max",
    "sum",
    "abs",
    "round",
    "any",
    "all",
    "id",
    "hash",
    "type",
    "format",
    "open",
    "vars",
    "dir",
];

/// Functions outside the project that return (a wrapper of) what they are given.
const PASS_THROUGH_FUNCTIONS: &[&str] = &["deepcopy", "copy", "compile", "partial", "cast"];

/// Container methods that store their arguments into the receiver.
const STORE_METHODS: &[&str] = &[
    "append",
    "extend",
    "insert",
    "add",
    "update",
    "setdefault",
    "add_module",
    "register_module",
];

impl<'a> SemanticModel<'a> {
    /// The scope the code being visited belongs to: the enclosing function, else the module.
    fn flow_scope_mut(&mut self) -> &mut ScopeFlow {
        match self.current_function() {
            Some(idx) => &mut self.summary.flow.functions[idx as usize],
            None => &mut self.summary.flow.module,
        }
    }

    /// The class whose body is being visited directly (class-level assignments are its fields).
    fn class_body(&self) -> Option<&str> {
        match self.frames.last() {
            Some(frame) if matches!(frame.kind, FrameKind::Class) => Some(frame.qual.as_str()),
            _ => None,
        }
    }

    /// A new function scope (its parameters are its first locals).
    pub(crate) fn flow_enter_function(
        &mut self,
        idx: FuncIdx,
        def: &ast::StmtFunctionDef,
        has_self: bool,
        class: Option<&str>,
    ) {
        if !self.ctx.type_flow {
            return;
        }
        let params = &def.parameters;
        let mut scope = ScopeFlow {
            params: params
                .posonlyargs
                .iter()
                .chain(params.args.iter())
                .map(|p| p.parameter.name.id.as_str().into())
                .collect(),
            kwonly: params
                .kwonlyargs
                .iter()
                .map(|p| p.parameter.name.id.as_str().into())
                .collect(),
            vararg: params.vararg.as_ref().map(|p| p.name.id.as_str().into()),
            kwarg: params.kwarg.as_ref().map(|p| p.name.id.as_str().into()),
            bound_first: has_self,
            first_is_class: has_self
                && def.decorator_list.iter().any(
                    |d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "classmethod"),
                ),
            class: class.map(Into::into),
            ..ScopeFlow::default()
        };
        let names: Vec<Box<str>> = scope
            .params
            .iter()
            .chain(scope.kwonly.iter())
            .chain(scope.vararg.iter())
            .chain(scope.kwarg.iter())
            .cloned()
            .collect();
        scope.locals = names;
        let functions = &mut self.summary.flow.functions;
        if functions.len() <= idx as usize {
            functions.resize_with(idx as usize + 1, ScopeFlow::default);
        }
        functions[idx as usize] = scope;
    }

    /// `targets = value` (and `target: T = value`).
    pub(crate) fn note_flow_assignment(&mut self, targets: &[&Expr], value: &Expr) {
        if !self.ctx.type_flow {
            return;
        }
        let value = self.flow_value(value, 0);
        if matches!(value, ValueExpr::Opaque) {
            // Still a local: a later read must not fall back to a module-level name.
            for target in targets {
                self.bind_flow_names(target);
            }
            return;
        }
        for target in targets {
            self.store_into(target, &value, 0);
        }
    }

    /// `for target in iter:`.
    pub(crate) fn note_flow_loop(&mut self, target: &Expr, iter: &Expr) {
        if !self.ctx.type_flow {
            return;
        }
        let value = self.flow_value(iter, 0);
        self.store_into(target, &value, 0);
    }

    /// The `for` clauses of a comprehension bind their targets to the iterated values.
    pub(crate) fn note_flow_comprehension(&mut self, generators: &[ast::Comprehension]) {
        if !self.ctx.type_flow {
            return;
        }
        for generator in generators {
            let value = self.flow_value(&generator.iter, 0);
            self.store_into(&generator.target, &value, 0);
        }
    }

    /// `return value` in a function.
    pub(crate) fn note_flow_return(&mut self, value: &Expr) {
        if !self.ctx.type_flow {
            return;
        }
        if self.current_function().is_none() {
            return;
        }
        let value = self.flow_value(value, 0);
        if !matches!(value, ValueExpr::Opaque) {
            self.flow_scope_mut().returns.push(value);
        }
    }

    /// `torch.compile(target)` (`module_method`: `target.compile()`).
    pub(crate) fn note_flow_compile_target(
        &mut self,
        target: &Expr,
        module_method: bool,
        fullgraph: bool,
    ) {
        if !self.ctx.type_flow {
            return;
        }
        let value = self.flow_value(target, 0);
        self.flow_scope_mut()
            .compile_targets
            .push(FlowCompileTarget {
                value,
                module_method,
                fullgraph,
            });
    }

    fn bind_flow_names(&mut self, target: &Expr) {
        match target {
            Expr::Name(name) if self.class_body().is_none() => {
                self.flow_scope_mut().bind(name.id.as_str());
            }
            Expr::Tuple(tuple) => tuple.elts.iter().for_each(|e| self.bind_flow_names(e)),
            Expr::List(list) => list.elts.iter().for_each(|e| self.bind_flow_names(e)),
            Expr::Starred(starred) => self.bind_flow_names(&starred.value),
            _ => {}
        }
    }

    fn store_into(&mut self, target: &Expr, value: &ValueExpr, depth: u32) {
        if depth > 8 {
            return;
        }
        match target {
            // Unpacking: every name may hold any element (containers are transparent).
            Expr::Tuple(tuple) => {
                for element in &tuple.elts {
                    self.store_into(element, value, depth + 1);
                }
            }
            Expr::List(list) => {
                for element in &list.elts {
                    self.store_into(element, value, depth + 1);
                }
            }
            Expr::Starred(starred) => self.store_into(&starred.value, value, depth + 1),
            _ => {
                if let Some(place) = self.place_of(target) {
                    if let Place::Name(name) = &place
                        && self.class_body().is_none()
                    {
                        let name = name.clone();
                        self.flow_scope_mut().bind(&name);
                    }
                    self.flow_scope_mut().stores.push((place, value.clone()));
                }
            }
        }
    }

    /// Where storing into `target` lands: a name, a field, the container a subscript indexes.
    fn place_of(&mut self, target: &Expr) -> Option<Place> {
        match target {
            Expr::Name(name) => match self.class_body() {
                Some(class) => Some(Place::Field {
                    class: class.into(),
                    attr: name.id.as_str().into(),
                }),
                None => Some(Place::Name(name.id.as_str().into())),
            },
            Expr::Attribute(attribute) => {
                if let Some((class, attr)) = self.self_attribute(target) {
                    return Some(Place::Field {
                        class: class.into(),
                        attr: attr.into(),
                    });
                }
                let base = self.flow_value(&attribute.value, 1);
                (!matches!(base, ValueExpr::Opaque))
                    .then(|| Place::AttrOf(base, attribute.attr.id.as_str().into()))
            }
            // `d[k] = v` stores into the container `d` is.
            Expr::Subscript(subscript) => self.place_of(&subscript.value),
            _ => None,
        }
    }

    /// What `expr` evaluates to for the type flow (calls inside it are recorded).
    pub(crate) fn flow_value(&mut self, expr: &Expr, depth: u32) -> ValueExpr {
        if depth > MAX_EXPR_DEPTH / 4 {
            return ValueExpr::Opaque;
        }
        match expr {
            Expr::Name(name) => self.flow_name(name.id.as_str()),
            Expr::Attribute(attribute) => {
                // `super().attr`
                if let Expr::Call(call) = &*attribute.value
                    && self.is_builtin(&call.func, "super")
                {
                    return ValueExpr::SuperAttr(attribute.attr.id.as_str().into());
                }
                // A dotted path through an import (`nn.ModuleList`, `pkg.models.build`).
                if self.rooted_in_import(expr)
                    && let Some(sym @ Sym::Dotted(_)) = self.resolve(expr)
                {
                    return ValueExpr::Sym(sym);
                }
                let base = self.flow_value(&attribute.value, depth + 1);
                if matches!(base, ValueExpr::Opaque) {
                    return ValueExpr::Opaque;
                }
                ValueExpr::Attr(Box::new(base), attribute.attr.id.as_str().into())
            }
            Expr::Call(call) => self.flow_call(call, depth + 1),
            Expr::Subscript(subscript) => self.flow_value(&subscript.value, depth + 1),
            Expr::Starred(starred) => self.flow_value(&starred.value, depth + 1),
            Expr::Await(await_expr) => self.flow_value(&await_expr.value, depth + 1),
            Expr::Named(named) => self.flow_value(&named.value, depth + 1),
            Expr::List(list) => self.flow_union(list.elts.iter(), depth),
            Expr::Tuple(tuple) => self.flow_union(tuple.elts.iter(), depth),
            Expr::Set(set) => self.flow_union(set.elts.iter(), depth),
            Expr::Dict(dict) => self.flow_union(dict.items.iter().map(|item| &item.value), depth),
            Expr::ListComp(comp) => self.flow_value(&comp.elt, depth + 1),
            Expr::SetComp(comp) => self.flow_value(&comp.elt, depth + 1),
            Expr::Generator(comp) => self.flow_value(&comp.elt, depth + 1),
            Expr::DictComp(comp) => self.flow_value(&comp.value, depth + 1),
            Expr::BoolOp(boolop) => self.flow_union(boolop.values.iter(), depth),
            Expr::If(if_expr) => {
                self.flow_union([&*if_expr.body, &*if_expr.orelse].into_iter(), depth)
            }
            _ => ValueExpr::Opaque,
        }
    }

    fn flow_union<'e>(&mut self, items: impl Iterator<Item = &'e Expr>, depth: u32) -> ValueExpr {
        let mut values: Vec<ValueExpr> = items
            .map(|item| self.flow_value(item, depth + 1))
            .filter(|v| !matches!(v, ValueExpr::Opaque))
            .collect();
        match values.len() {
            0 => ValueExpr::Opaque,
            1 => values.pop().unwrap_or(ValueExpr::Opaque),
            _ => ValueExpr::Union(values),
        }
    }

    fn flow_name(&self, name: &str) -> ValueExpr {
        if let Some((self_name, _)) = self.method_context()
            && name == self_name
        {
            return if self.in_classmethod() {
                ValueExpr::ClsRef
            } else {
                ValueExpr::SelfRef
            };
        }
        let bound = match self.lookup(name) {
            Some(Binding::Import(target)) => Some(Sym::Dotted(target.clone())),
            Some(Binding::Def(qual) | Binding::Class(qual)) => Some(Sym::Local(qual.clone())),
            _ => None,
        };
        if bound.is_none() && self.is_builtin_name(name) {
            return ValueExpr::Opaque;
        }
        ValueExpr::Name {
            name: name.into(),
            bound,
        }
    }

    fn is_builtin_name(&self, name: &str) -> bool {
        matches!(name, "None" | "True" | "False")
            || OPAQUE_BUILTINS.contains(&name)
            || PASS_THROUGH_BUILTINS.contains(&name)
    }

    /// Is the innermost method a `@classmethod` (its first parameter is the class)?
    fn in_classmethod(&self) -> bool {
        self.current_function().is_some_and(|idx| {
            self.summary
                .flow
                .functions
                .get(idx as usize)
                .is_some_and(|scope| scope.first_is_class)
        })
    }

    /// Does the attribute chain start at a name bound by an import?
    fn rooted_in_import(&self, expr: &Expr) -> bool {
        let mut root = expr;
        while let Expr::Attribute(attribute) = root {
            root = &attribute.value;
        }
        matches!(root, Expr::Name(name) if matches!(self.lookup(name.id.as_str()), Some(Binding::Import(_))))
    }

    /// Records a call (once: a call seen inside an assignment's value is recorded there, and its
    /// path is set again when the walk reaches it) and says what it evaluates to.
    pub(crate) fn flow_call(&mut self, call: &ast::ExprCall, depth: u32) -> ValueExpr {
        let offset = u32::from(call.start());
        if let Some(&index) = self.flow_call_index.get(&offset) {
            let path: Box<[_]> = self.path.as_slice().into();
            if let Some(recorded) = self.flow_scope_mut().calls.get_mut(index as usize) {
                recorded.path = path;
            }
            return ValueExpr::Call(index);
        }
        if let Expr::Name(name) = &*call.func
            && self.lookup(name.id.as_str()).is_none()
        {
            let builtin = name.id.as_str();
            if PASS_THROUGH_BUILTINS.contains(&builtin) {
                return self.flow_union(call.arguments.args.iter(), depth);
            }
            if builtin == "getattr"
                && let [object, Expr::StringLiteral(attr), rest @ ..] = &*call.arguments.args
            {
                let base = self.flow_value(object, depth + 1);
                let mut values = vec![ValueExpr::Attr(Box::new(base), attr.value.to_str().into())];
                if let Some(default) = rest.first() {
                    values.push(self.flow_value(default, depth + 1));
                }
                return ValueExpr::Union(values);
            }
            if OPAQUE_BUILTINS.contains(&builtin) || builtin == "super" || builtin == "getattr" {
                return ValueExpr::Opaque;
            }
        }
        // Containers and wrappers outside the project hand back what they were given
        // (`nn.ModuleList([...])`, `OrderedDict(...)`, `copy.deepcopy(m)`, `torch.compile(m)`);
        // any other call outside the project hands back nothing the flow follows.
        if self.rooted_in_import(&call.func)
            && let Some(Sym::Dotted(dotted)) = self.resolve(&call.func)
            && !self.is_project_dotted(&dotted)
        {
            let last = dotted.rsplit('.').next().unwrap_or(&dotted);
            let wraps = last.starts_with(|c: char| c.is_ascii_uppercase())
                || PASS_THROUGH_FUNCTIONS.contains(&last);
            return if wraps {
                self.flow_union(call.arguments.args.iter(), depth)
            } else {
                ValueExpr::Opaque
            };
        }
        let mut by_name_fallback = false;
        if let Expr::Attribute(attribute) = &*call.func {
            let method = attribute.attr.id.as_str();
            if crate::semantic::data::TORCH
                .tensor_returning_methods
                .contains(method)
            {
                // A tensor method: nothing project-side comes back.
                return ValueExpr::Opaque;
            }
            if STORE_METHODS.contains(&method) && self.self_attribute(&attribute.value).is_some()
                || STORE_METHODS.contains(&method) && matches!(&*attribute.value, Expr::Name(_))
            {
                let value = self.flow_union(call.arguments.args.iter(), depth);
                if !matches!(value, ValueExpr::Opaque)
                    && let Some(place) = self.place_of(&attribute.value)
                {
                    self.flow_scope_mut().stores.push((place, value));
                }
                return ValueExpr::Opaque;
            }
            by_name_fallback = matches!(
                &*attribute.value,
                Expr::Name(_) | Expr::Subscript(_) | Expr::Call(_)
            ) && self.tensor_kind(&attribute.value)
                != crate::semantic::tensor::TensorKind::Tensor;
        }
        let callee = self.flow_value(&call.func, depth + 1);
        if matches!(callee, ValueExpr::Opaque) {
            return ValueExpr::Opaque;
        }
        let arguments = &call.arguments;
        let mut positional = Vec::new();
        let mut star = Vec::new();
        for arg in arguments.args.iter() {
            match arg {
                Expr::Starred(starred) => star.push(self.flow_value(&starred.value, depth + 1)),
                other => positional.push(self.flow_value(other, depth + 1)),
            }
        }
        let mut keywords = Vec::new();
        let mut double_star = Vec::new();
        for keyword in arguments.keywords.iter() {
            let value = self.flow_value(&keyword.value, depth + 1);
            match &keyword.arg {
                Some(name) => keywords.push((name.id.as_str().into(), value)),
                None => double_star.push(value),
            }
        }
        let spread = |mut values: Vec<ValueExpr>| match values.len() {
            0 => None,
            1 => values.pop(),
            _ => Some(ValueExpr::Union(values)),
        };
        let location = self.location(offset);
        let end_location = self.location(u32::from(call.end()));
        let row = location.row;
        let recorded = FlowCall {
            callee,
            positional,
            keywords,
            star: spread(star),
            double_star: spread(double_star),
            path: self.path.as_slice().into(),
            row,
            location,
            end_location,
            by_name_fallback,
        };
        let scope = self.flow_scope_mut();
        let index = scope.calls.len() as u32;
        scope.calls.push(recorded);
        self.flow_call_index.insert(offset, index);
        ValueExpr::Call(index)
    }
}

/// The strings of a literal list or tuple of strings (`__all__ = ["A", "b"]`).
pub(crate) fn literal_names(value: &Expr) -> Option<Vec<String>> {
    let elements = match value {
        Expr::List(list) => &list.elts,
        Expr::Tuple(tuple) => &tuple.elts,
        _ => return None,
    };
    elements
        .iter()
        .map(|e| match e {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_owned()),
            _ => None,
        })
        .collect()
}

/// `a.b.c` for a name or attribute chain.
pub(crate) fn dotted_text(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Name(name) => Some(name.id.to_string()),
        Expr::Attribute(attribute) => Some(format!(
            "{}.{}",
            dotted_text(&attribute.value)?,
            attribute.attr.id
        )),
        _ => None,
    }
}
