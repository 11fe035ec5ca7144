//! What a `for` loop binds: iterating a tensor yields tensors (its rows along dim 0), and
//! unpacking a row yields tensors too (`for h, w in sizes:` with `sizes` an `(n, 2)` tensor gives
//! two 0-d tensors), through `enumerate(...)` (an int counter, then the elements) and `zip(...)`
//! (each target from its own iterable). Any other iterable binds names of unknown kind. A
//! parameter the body has not rebound binds its elements (`Frame::param_elements`): tensors where
//! a traced call passes a tensor for it, or, for a root, where its annotation tells the user to
//! (the parameter hypothesis, `semantic/tensor_params.rs`); an annotation alone may be
//! contradicted by the project's own callers. Before the loop the names may have held something else: the old kind and value are forgotten;
//! a comprehension's names shadow the function's only while it is read.

use super::*;

impl<'a> SemanticModel<'a> {
    /// `for target in iter:` — the kinds its names hold in the body.
    pub(crate) fn bind_loop_target_kinds(&mut self, target: &'a Expr, iter: &Expr) {
        if self.function_frame().is_none() {
            return;
        }
        let mut bound: Vec<Bound> = Vec::new();
        self.loop_target_kinds(target, iter, 0, &mut bound);
        self.note_params_rebound(target);
        let Some(frame) = self.function_frame_mut() else {
            return;
        };
        for (name, kind, element_of) in bound {
            frame.bindings.remove(name.as_str());
            frame.values.remove(name.as_str());
            frame.returned.remove(name.as_str());
            frame.params_untouched_on_a_path.retain(|p| p != &name);
            set_element_of(frame, &name, element_of);
            let previous = frame.locals.insert(name.clone(), kind);
            if let Some(id) = target_name(target, name.as_str()) {
                frame.value_joins.forget(id, kind, previous);
            }
        }
    }

    /// A comprehension's generators: their names hold these kinds while the comprehension is
    /// read (each generator's iterable may use the names of the ones before it), then what they
    /// held in the function before comes back (a comprehension has its own scope).
    pub(crate) fn bind_comprehension_kinds(
        &mut self,
        pairs: &[(&Expr, &Expr)],
    ) -> ShadowedLocals<'a> {
        let mut shadowed = ShadowedLocals(Vec::new());
        if self.function_frame().is_none() {
            return shadowed;
        }
        for (target, iter) in pairs {
            let mut bound: Vec<Bound> = Vec::new();
            self.loop_target_kinds(target, iter, 0, &mut bound);
            let Some(frame) = self.function_frame_mut() else {
                break;
            };
            for (name, kind, element_of) in bound {
                let element_of = set_element_of(frame, &name, element_of);
                shadowed.0.push(Shadowed {
                    kind: frame.locals.insert(name.clone(), kind),
                    value: frame.values.remove(name.as_str()),
                    binding: frame.bindings.remove(name.as_str()),
                    element_of,
                    returned: frame.returned.remove(name.as_str()),
                    name,
                });
            }
        }
        shadowed
    }

    /// After the comprehension: the function's own names again.
    pub(crate) fn unshadow_locals(&mut self, shadowed: ShadowedLocals<'a>) {
        let Some(frame) = self.function_frame_mut() else {
            return;
        };
        for Shadowed {
            name,
            kind,
            value,
            binding,
            element_of,
            returned,
        } in shadowed.0.into_iter().rev()
        {
            set_element_of(frame, &name, element_of);
            match returned {
                Some(returned) => frame.returned.insert(name.clone(), returned),
                None => frame.returned.remove(name.as_str()),
            };
            match kind {
                Some(kind) => frame.locals.insert(name.clone(), kind),
                None => frame.locals.remove(name.as_str()),
            };
            if let Some(value) = value {
                frame.values.insert(name.clone(), value);
            }
            if let Some(binding) = binding {
                frame.bindings.insert(name, binding);
            }
        }
    }

    fn loop_target_kinds(&self, target: &Expr, iter: &Expr, depth: u32, out: &mut Vec<Bound>) {
        if depth > 8 {
            return;
        }
        if let Some(pairs) = self.zip_or_enumerate(target, iter) {
            for (element, source) in pairs {
                match source {
                    Some(source) => self.loop_target_kinds(element, source, depth + 1, out),
                    None => all_names(element, TensorKind::NotTensor, out),
                }
            }
            return;
        }
        // A parameter is a tensor by its annotation only, a claim callers may contradict (a
        // `Tensor`-annotated parameter given a list of tuples): the names are elements of the
        // parameter, tensors where the parameter hypothesis holds for it (module doc). A tensor
        // the body computed types them outright.
        match (self.tensor_kind(iter), iter) {
            (TensorKind::Tensor, Expr::Name(param)) if self.is_unrebound_param(iter) => {
                let start = out.len();
                all_names(target, TensorKind::Unknown, out);
                for bound in &mut out[start..] {
                    bound.2 = Some(param.id.to_string());
                }
            }
            (TensorKind::Tensor, _) => all_names(target, TensorKind::Tensor, out),
            _ => all_names(target, TensorKind::Unknown, out),
        }
    }
}

/// What a comprehension's names shadowed in the function.
pub(crate) struct ShadowedLocals<'a>(Vec<Shadowed<'a>>);

/// One name's kind, value, binding, parameter it was an element of and project call it was
/// bound from in the function before a comprehension rebound it.
struct Shadowed<'a> {
    name: String,
    kind: Option<TensorKind>,
    value: Option<&'a Expr>,
    binding: Option<Binding>,
    element_of: Option<String>,
    returned: Option<crate::semantic::summary::ReturnDep>,
}

/// A name a loop binds, its kind, and the parameter it is an element of (when the loop iterates
/// a parameter the body has not rebound).
type Bound = (String, TensorKind, Option<String>);

/// Records which parameter `name` is an element of (`None`: none); returns what it was before.
fn set_element_of(frame: &mut Frame<'_>, name: &str, element_of: Option<String>) -> Option<String> {
    match element_of {
        Some(param) => frame.param_elements.insert(name.to_owned(), param),
        None => frame.param_elements.remove(name),
    }
}

/// The name `name` as the target spells it (borrowed from the syntax tree).
fn target_name<'a>(target: &'a Expr, name: &str) -> Option<&'a str> {
    match target {
        Expr::Name(id) => (id.id.as_str() == name).then_some(id.id.as_str()),
        Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
            elts.iter().find_map(|e| target_name(e, name))
        }
        Expr::Starred(starred) => target_name(&starred.value, name),
        _ => None,
    }
}

/// Every name a target binds, each to `kind` (a tensor's elements, unpacked, are tensors).
fn all_names(target: &Expr, kind: TensorKind, out: &mut Vec<Bound>) {
    match target {
        Expr::Name(name) => out.push((name.id.as_str().to_owned(), kind, None)),
        Expr::Tuple(tuple) => tuple.elts.iter().for_each(|e| all_names(e, kind, out)),
        Expr::List(list) => list.elts.iter().for_each(|e| all_names(e, kind, out)),
        Expr::Starred(starred) => all_names(&starred.value, kind, out),
        _ => {}
    }
}

impl<'a> SemanticModel<'a> {
    /// `for a, b in zip(xs, ys)` → `[(a, xs), (b, ys)]`; `for i, x in enumerate(xs)` →
    /// `[(i, None), (x, xs)]` (`None`: the int counter). `None` for any other loop: its target
    /// takes the iterable's elements whole.
    pub(crate) fn zip_or_enumerate<'e>(
        &self,
        target: &'e Expr,
        iter: &'e Expr,
    ) -> Option<Vec<(&'e Expr, Option<&'e Expr>)>> {
        let Expr::Call(call) = iter else { return None };
        let Expr::Name(name) = &*call.func else {
            return None;
        };
        let (Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. })) =
            target
        else {
            return None;
        };
        // `zip(..., strict=True)`, `enumerate(xs, start=1)`: keywords change no pairing.
        if self.lookup(name.id.as_str()).is_some() {
            return None;
        }
        match name.id.as_str() {
            "zip" if call.arguments.args.len() == elts.len() => Some(
                elts.iter()
                    .zip(call.arguments.args.iter())
                    .map(|(element, source)| (element, Some(source)))
                    .collect(),
            ),
            "enumerate" if elts.len() == 2 => {
                let source = call.arguments.args.first()?;
                Some(vec![(&elts[0], None), (&elts[1], Some(source))])
            }
            _ => None,
        }
    }

    /// `expr` names a parameter of the current function that its body has not rebound.
    fn is_unrebound_param(&self, expr: &Expr) -> bool {
        self.unrebound_param(expr).is_some()
    }

    /// The parameter `expr` names, when the body has not rebound it (it holds what the caller
    /// passed).
    pub fn unrebound_param<'e>(&self, expr: &'e Expr) -> Option<&'e str> {
        let Expr::Name(name) = expr else {
            return None;
        };
        self.function_frame()
            .is_some_and(|frame| frame.is_unrebound_param(name.id.as_str()))
            .then_some(name.id.as_str())
    }
}
