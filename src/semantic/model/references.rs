//! Functions used as values: the edges a call graph built only from call expressions misses.
//!
//! Python runs a function it never names in a call: a `@property` getter on every `self.x` read, a
//! bound method kept in a local (`fn = self.a if c else self.b; fn(x)`), a function handed to
//! another (`apply(data, helper)`), a nested `def` its enclosing function returns or registers as
//! a hook, a function stored on `self` in `__init__` and called later (`self.act = identity` …
//! `self.act(x)`), including through a parameter's default (`def __init__(self, sample=sample_fn)`).
//! Dynamo follows each of them when the code holding the reference is traced. Each becomes a
//! reference edge (`Sym::FunctionRef`), resolved when linking to project *functions* only (never
//! to a class's `__init__`, never to the `__call__` of a stored instance) and with unknown
//! arguments, so caller-context facts never read "passes nothing" from it.

use super::*;
use crate::semantic::summary::CallArgs;
use std::hash::{Hash, Hasher};

impl<'a> SemanticModel<'a> {
    /// A reference edge from the current function to `target`, at the current path.
    pub(super) fn push_reference(&mut self, target: Sym, offset: TextSize) {
        let Some(func) = self.current_function() else {
            return;
        };
        // One edge per function and target on the same path (a getter read many times), found
        // through a hash of the three, not a scan of the function's edges.
        let key = {
            let mut hasher = rustc_hash::FxHasher::default();
            func.hash(&mut hasher);
            target.hash(&mut hasher);
            self.path.hash(&mut hasher);
            hasher.finish()
        };
        let calls = &self.summary.functions[func as usize].calls;
        if self.reference_index.get(&key).is_some_and(|indices| {
            indices.iter().any(|&i| {
                let edge = &calls[i as usize];
                matches!(&edge.sym, Sym::FunctionRef(existing) if **existing == target)
                    && *edge.path == *self.path
            })
        }) {
            return;
        }
        let index = calls.len() as u32;
        self.reference_index.entry(key).or_default().push(index);
        let edge = CallEdge {
            sym: Sym::FunctionRef(Box::new(target)),
            path: self.path.as_slice().into(),
            row: self.row(offset.into()),
            // Unknown arguments: spreads of anything pass every parameter.
            args: self.ctx.roots_configured.then(|| {
                Box::new(CallArgs {
                    star: Some(String::new()),
                    double_star: Some(String::new()),
                    ..CallArgs::default()
                })
            }),
            host_index_args: Box::new([]),
            tensor_args: Box::new([]),
        };
        self.summary.functions[func as usize].calls.push(edge);
    }

    /// The callee of the call being visited: its own `self.m` / `f` is a call, not a reference.
    pub(crate) fn note_callee(&mut self, func: &Expr) {
        self.callee_range = Some(func.range());
    }

    /// The value of an attribute being visited (`mod.f`, `obj.x`): the name is not used whole.
    pub(crate) fn note_attribute_value(&mut self, value: &Expr) {
        self.attribute_value_range = Some(value.range());
    }

    /// `self.name` read (not called): a property getter or a bound method used as a value.
    pub(crate) fn record_self_read(&mut self, attribute: &ast::ExprAttribute) {
        if attribute.ctx != ast::ExprContext::Load
            || self.callee_range == Some(attribute.range())
            || !self.in_function()
        {
            return;
        }
        let Expr::Name(base) = &*attribute.value else {
            return;
        };
        let Some((self_name, class)) = self.method_context() else {
            return;
        };
        if base.id.as_str() != self_name {
            return;
        }
        let target = Sym::SelfAttr {
            class: class.to_owned(),
            attr: attribute.attr.id.as_str().to_owned(),
        };
        self.push_reference(target, attribute.start());
    }

    /// A name read as a whole value (an argument, an assigned or returned value) that is bound to
    /// a function definition or an import.
    pub(crate) fn record_name_reference(&mut self, name: &ast::ExprName) {
        if name.ctx != ast::ExprContext::Load
            || self.callee_range == Some(name.range())
            || self.attribute_value_range == Some(name.range())
            || !self.in_function()
        {
            return;
        }
        let target = match self.lookup(name.id.as_str()) {
            Some(Binding::Def(qual)) => Sym::Local(qual.clone()),
            Some(Binding::Import(dotted)) if self.is_project_dotted(dotted) => {
                Sym::Dotted(dotted.clone())
            }
            _ => return,
        };
        self.push_reference(target, name.start());
    }

    /// A `def` directly inside a function: the closure it creates is returned, registered or
    /// called from there (`pack()` returning its `unpack`), so it runs when its creator does.
    pub(crate) fn record_nested_def(&mut self, def: &ast::StmtFunctionDef, qual: &str) {
        if matches!(
            self.frames.last().map(|frame| &frame.kind),
            Some(FrameKind::Function { .. })
        ) {
            self.push_reference(Sym::Local(qual.to_owned()), def.start());
        }
    }

    /// Parameters whose default is a function (`sample=sample_vectors`), resolved in the scope
    /// the `def` is in (where Python evaluates defaults).
    pub(super) fn param_callable_defaults(
        &self,
        def: &ast::StmtFunctionDef,
    ) -> FxMap<String, Vec<Sym>> {
        let mut out = FxMap::default();
        for param in def.parameters.iter_non_variadic_params() {
            if let Some(default) = param.default.as_deref() {
                let found = self.callables_of(default);
                if !found.is_empty() {
                    out.insert(param.parameter.name.id.as_str().to_owned(), found);
                }
            }
        }
        out
    }

    /// Parameters whose default builds an instance (`loss=Loss()`): the class called, resolved in
    /// the scope the `def` is in. `self.loss = loss` then holds that instance when the caller
    /// passes nothing (and a caller's own instance is typed where it is built).
    pub(super) fn param_instance_defaults(&self, def: &ast::StmtFunctionDef) -> FxMap<String, Sym> {
        let mut out = FxMap::default();
        for param in def.parameters.iter_non_variadic_params() {
            if let Some(Expr::Call(call)) = param.default.as_deref()
                && let Some(sym @ (Sym::Local(_) | Sym::Dotted(_))) = self.resolve(&call.func)
            {
                out.insert(param.parameter.name.id.as_str().to_owned(), sym);
            }
        }
        out
    }

    /// The project functions an expression may evaluate to: a name bound to a definition or an
    /// import, `self.m`, either side of a conditional expression or of `or` / `and`, and a
    /// parameter with a function default.
    pub(super) fn callables_of(&self, value: &Expr) -> Vec<Sym> {
        match value {
            Expr::If(ternary) => {
                let mut out = self.callables_of(&ternary.body);
                out.extend(self.callables_of(&ternary.orelse));
                out
            }
            Expr::BoolOp(boolop) => boolop
                .values
                .iter()
                .flat_map(|v| self.callables_of(v))
                .collect(),
            Expr::Name(name) => {
                if let Some(defaults) = self
                    .function_frame()
                    .and_then(|frame| frame.param_callables.get(name.id.as_str()))
                    && !self
                        .function_frame()
                        .is_some_and(|frame| frame.values.contains_key(name.id.as_str()))
                {
                    return defaults.clone();
                }
                match self.lookup(name.id.as_str()) {
                    Some(Binding::Def(qual)) => vec![Sym::Local(qual.clone())],
                    Some(Binding::Import(dotted)) if self.is_project_dotted(dotted) => {
                        vec![Sym::Dotted(dotted.clone())]
                    }
                    _ => Vec::new(),
                }
            }
            Expr::Attribute(_) => match self.self_attribute(value) {
                Some((class, attr)) => vec![Sym::SelfAttr { class, attr }],
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// `self.attr = <function>` in a method: `self.attr(...)` calls it (when the class defines no
    /// method of that name). Stored per class, every assignment adding its candidates.
    /// `self.attr = factory(...)` / `self.attr = self.wrap(self.attr)`: the factory is recorded
    /// apart (`self_attr_factories`); linking reads the closures it returns.
    pub(crate) fn note_self_callable(&mut self, target: &Expr, value: &Expr) {
        let Some((class, attr)) = self.self_attribute(target) else {
            return;
        };
        let (found, map) = match value {
            Expr::Call(call) => (
                self.callables_of(&call.func),
                &mut self.summary.self_attr_factories,
            ),
            _ => (
                self.callables_of(value),
                &mut self.summary.self_attr_callables,
            ),
        };
        if found.is_empty() {
            return;
        }
        let slot = map.entry(class).or_default().entry(attr).or_default();
        for sym in found {
            if !slot.contains(&sym) {
                slot.push(sym);
            }
        }
    }
}
