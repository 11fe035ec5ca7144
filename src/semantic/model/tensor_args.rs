//! Tensor arguments at call sites: which arguments a call passes are tensors, so that a parameter
//! the body alone cannot type (`def fn(x, check): if check: ...`) is a tensor in the contexts
//! where a call gives it one (`opt_fn(x, torch.ones(1))`).
//!
//! Why: Dynamo wraps a frame's inputs, and an inlined callee's arguments, by their runtime value.
//! A branch on a parameter that arrives as a tensor is a data-dependent jump whatever the
//! parameter's name or annotation says (measured on torch 2.11: tests/python/
//! test_reach_proofs.py). The body only tells tensor-ness from annotations and uses; the call
//! sites tell the rest.
//!
//! Per file (this walk) the model records, for each project call edge, its arguments that are
//! tensors outright or would be if one of the caller's own unannotated parameters were
//! (`TensorSource::Params`), and for each call of a compiled function of the file
//! (`opt = torch.compile(fn)` / `torch._dynamo.optimize(b)(fn)` then `opt(...)`, a call of an
//! `@torch.compile` function) the tensors it passes by parameter. A finding that needs a
//! parameter to be a tensor carries the parameter (`Candidate::tensor_params`); linking solves
//! the facts once over the traced call edges (`semantic/tensor_params.rs`).
//!
//! Cost: one `tensor_kind` per argument of a project call (a second, hypothetical one only for
//! an argument whose kind is unknown), the work `host_index_args` already does per argument;
//! at module level a compiled call's bare-name argument scans the module's statements once.

use super::*;
use crate::semantic::summary::{CompiledCall, ReturnDep, TensorArg, TensorSource};

/// How far a module-level name is followed through other names (`t = a; a = torch.ones(1)`).
const MAX_MODULE_NAME_HOPS: u32 = 4;

/// What an answer under the hypothesis used: the parameters it took for tensors, and (when the
/// question allows it) the locals it took for tensors because a project call returned them.
#[derive(Clone, Debug, Default)]
pub struct Hypothesis {
    pub params: Vec<String>,
    /// `None`: the question counts parameters only.
    pub returns: Option<Vec<(String, ReturnDep)>>,
}

impl Hypothesis {
    /// The answer needed no parameter and no returned local.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty() && self.returns.as_ref().is_none_or(Vec::is_empty)
    }

    /// Adds what `other` used (a value with several operands: either one suffices).
    pub fn merge(&mut self, other: Hypothesis) {
        for param in other.params {
            if !self.params.contains(&param) {
                self.params.push(param);
            }
        }
        if let Some(returns) = other.returns {
            let mine = self.returns.get_or_insert_with(Vec::new);
            for (name, dep) in returns {
                if !mine.iter().any(|(n, _)| *n == name) {
                    mine.push((name, dep));
                }
            }
        }
    }
}

impl<'a> SemanticModel<'a> {
    /// A local whose kind is unknown, while [`SemanticModel::tensor_if_params_are`] asks: a
    /// parameter the function has not rebound counts as a tensor, and is remembered.
    pub(super) fn hypothetical_param_kind(&self, name: &str) -> TensorKind {
        let mut hypothesis = self.param_hypothesis.borrow_mut();
        let Some(used) = hypothesis.as_mut() else {
            return TensorKind::Unknown;
        };
        let Some(frame) = self.function_frame() else {
            return TensorKind::Unknown;
        };
        // An element of a parameter a loop iterates (`for h, w in sizes:`): a tensor where the
        // parameter is one.
        let name = match frame.param_elements.get(name) {
            Some(param) => param.as_str(),
            None => name,
        };
        if !frame.is_unrebound_param(name)
            && !frame.params_untouched_on_a_path.iter().any(|p| p == name)
        {
            // A local a project call returned: a tensor where the callee returns one there.
            if let Some(returns) = used.returns.as_mut()
                && let Some(dep) = frame.returned.get(name)
            {
                if !returns.iter().any(|(n, _)| n == name) {
                    returns.push((name.to_owned(), dep.clone()));
                }
                return TensorKind::Tensor;
            }
            return TensorKind::Unknown;
        }
        // A parameter the body tests with `isinstance` takes several types, and a test of it
        // may sit where it is narrowed to a host one (`isinstance(p, list) and p`): the body
        // decides its type, not the calls.
        let narrowed = frame
            .isinstance_names
            .get_or_init(|| isinstance_first_names(self.text(frame.body_range)));
        if narrowed.iter().any(|n| n == name) && !frame.tensor_narrowed_params.contains(&name) {
            return TensorKind::Unknown;
        }
        if !used.params.iter().any(|p| p == name) {
            used.params.push(name.to_owned());
        }
        TensorKind::Tensor
    }

    /// The parameters of the function being visited (unannotated or annotated with no tensor
    /// answer, and not rebound) that would make `expr` a tensor if one of them were: `if check:`
    /// → `["check"]`, `a > 0` → `["a"]`. `None` when the hypothesis does not make it a tensor.
    /// Ask only where `tensor_kind` said `Unknown`.
    pub fn tensor_if_params_are(&self, expr: &Expr) -> Option<Vec<String>> {
        self.under_hypothesis(false, || self.tensor_kind(expr) == TensorKind::Tensor)
            .map(|used| used.params)
    }

    /// As [`SemanticModel::tensor_if_params_are`], and also taking locals a project call returned
    /// for tensors (`h, mask = helper(x)`): what the answer used of both.
    pub fn tensor_if_inputs_are(&self, expr: &Expr) -> Option<Hypothesis> {
        self.under_hypothesis(true, || self.tensor_kind(expr) == TensorKind::Tensor)
    }

    /// `test`'s answer when the function's parameters (as for `tensor_if_params_are`) are tensors,
    /// with the parameters it needed: `Some(params)` when the test holds only under that
    /// hypothesis (`y[x > 0]` → `["x"]`), `None` when it fails or holds without any of them.
    pub fn holds_if_params_are_tensors(&self, test: impl FnOnce() -> bool) -> Option<Vec<String>> {
        self.under_hypothesis(false, test).map(|used| used.params)
    }

    /// As [`SemanticModel::holds_if_params_are_tensors`], locals a project call returned included.
    pub fn holds_if_inputs_are_tensors(&self, test: impl FnOnce() -> bool) -> Option<Hypothesis> {
        self.under_hypothesis(true, test)
    }

    fn under_hypothesis(
        &self,
        with_returns: bool,
        test: impl FnOnce() -> bool,
    ) -> Option<Hypothesis> {
        self.function_frame()?;
        *self.param_hypothesis.borrow_mut() = Some(Hypothesis {
            params: Vec::new(),
            returns: with_returns.then(Vec::new),
        });
        let holds = test();
        let used = self
            .param_hypothesis
            .borrow_mut()
            .take()
            .unwrap_or_default();
        (holds && !used.is_empty()).then_some(used)
    }

    /// Whether a call argument is a tensor (or would be, through the caller's parameters).
    fn tensor_source(&self, arg: &Expr) -> Option<TensorSource> {
        match self.tensor_kind(arg) {
            TensorKind::Tensor => Some(TensorSource::Tensor),
            TensorKind::NotTensor => None,
            TensorKind::Unknown if self.in_function() => self
                .tensor_if_params_are(arg)
                .map(|params| TensorSource::Params(params.into())),
            TensorKind::Unknown => match arg {
                Expr::Name(name) => self
                    .module_name_is_tensor(name.id.as_str(), 0)
                    .then_some(TensorSource::Tensor),
                _ => None,
            },
        }
    }

    /// A tensor argument that is a boolean mask: outright, or where the caller's parameters its
    /// source names are tensors (`helper(x, kind == i)` with `kind` the caller's parameter).
    fn is_mask_argument(&self, arg: &Expr, source: &TensorSource) -> bool {
        match source {
            TensorSource::Tensor => self.is_bool_mask_element(arg, arg),
            TensorSource::Params(_) => self
                .holds_if_params_are_tensors(|| self.is_bool_mask_element(arg, arg))
                .is_some(),
        }
    }

    /// The tensor arguments of a project call, by position (up to a `*spread`) and keyword.
    pub(super) fn tensor_args(&self, arguments: &ast::Arguments) -> Box<[TensorArg]> {
        let mut out = Vec::new();
        for (position, argument) in arguments.args.iter().enumerate() {
            if matches!(argument, Expr::Starred(_)) {
                break;
            }
            if let Some(source) = self.tensor_source(argument) {
                out.push(TensorArg {
                    position: Some(position as u32),
                    keyword: None,
                    mask: self.is_mask_argument(argument, &source),
                    source,
                });
            }
        }
        for keyword in arguments.keywords.iter() {
            let Some(name) = &keyword.arg else { continue };
            if let Some(source) = self.tensor_source(&keyword.value) {
                out.push(TensorArg {
                    position: None,
                    keyword: Some(name.id.as_str().to_owned()),
                    mask: self.is_mask_argument(&keyword.value, &source),
                    source,
                });
            }
        }
        out.into()
    }

    /// A call of the compiled function `func` of this file: the tensors it passes, by parameter.
    pub(super) fn note_compiled_tensor_args(&mut self, func: FuncIdx, call: &ast::ExprCall) {
        let params = &self.summary.functions[func as usize].index_params;
        let mut args = Vec::new();
        for (position, arg) in call.arguments.args.iter().enumerate() {
            if matches!(arg, Expr::Starred(_)) {
                break;
            }
            let Some((param, _)) = params.iter().find(|(_, p)| *p == Some(position as u32)) else {
                continue;
            };
            if let Some(source) = self.tensor_source(arg) {
                let mask = self.is_mask_argument(arg, &source);
                args.push((param.clone(), source, mask));
            }
        }
        for keyword in &call.arguments.keywords {
            if let Some(name) = &keyword.arg
                && let Some((param, _)) = params.iter().find(|(p, _)| p == name.id.as_str())
                && let Some(source) = self.tensor_source(&keyword.value)
            {
                let mask = self.is_mask_argument(&keyword.value, &source);
                args.push((param.clone(), source, mask));
            }
        }
        if !args.is_empty() {
            let caller = self.current_function();
            self.summary.compiled_calls.push(CompiledCall {
                func,
                caller,
                args: args.into(),
            });
        }
    }

    /// Every binding of the module-level `name` (outside functions and classes, in any block of
    /// the module's statements) binds a tensor: `t = torch.ones(1)`, or a `for` target over a
    /// literal tuple or list of tensors (`for a in (t, f):`). Any other binding of the name
    /// (unpacking, `+=`, an import, a `def`) makes it unknown.
    fn module_name_is_tensor(&self, name: &str, hops: u32) -> bool {
        if hops > MAX_MODULE_NAME_HOPS {
            return false;
        }
        let mut bound = false;
        let ok = self.module_bindings_are_tensors(self.module_body(), name, hops, &mut bound);
        ok && bound
    }

    fn module_bindings_are_tensors(
        &self,
        body: &[Stmt],
        name: &str,
        hops: u32,
        bound: &mut bool,
    ) -> bool {
        let is_tensor = |value: &Expr| match value {
            Expr::Name(other) => self.module_name_is_tensor(other.id.as_str(), hops + 1),
            other => self.tensor_kind(other) == TensorKind::Tensor,
        };
        let names = |target: &Expr| {
            let mut found = false;
            visit_target_names(target, &mut |n| found |= n == name);
            found
        };
        for stmt in body {
            let ok = match stmt {
                Stmt::Assign(assign) => match assign.targets.as_slice() {
                    [Expr::Name(target)] if target.id.as_str() == name => {
                        *bound = true;
                        is_tensor(&assign.value)
                    }
                    targets => !targets.iter().any(names),
                },
                Stmt::AnnAssign(assign) => match (&*assign.target, &assign.value) {
                    (Expr::Name(target), Some(value)) if target.id.as_str() == name => {
                        *bound = true;
                        is_tensor(value)
                    }
                    (target, _) => !names(target),
                },
                Stmt::AugAssign(assign) => !names(&assign.target),
                Stmt::For(stmt_for) => {
                    let target_ok = match &*stmt_for.target {
                        Expr::Name(target) if target.id.as_str() == name => {
                            *bound = true;
                            match &*stmt_for.iter {
                                Expr::Tuple(ast::ExprTuple { elts, .. })
                                | Expr::List(ast::ExprList { elts, .. }) => {
                                    !elts.is_empty() && elts.iter().all(is_tensor)
                                }
                                _ => false,
                            }
                        }
                        target => !names(target),
                    };
                    target_ok
                        && self.module_bindings_are_tensors(&stmt_for.body, name, hops, bound)
                        && self.module_bindings_are_tensors(&stmt_for.orelse, name, hops, bound)
                }
                Stmt::While(stmt_while) => {
                    self.module_bindings_are_tensors(&stmt_while.body, name, hops, bound)
                        && self.module_bindings_are_tensors(&stmt_while.orelse, name, hops, bound)
                }
                Stmt::If(stmt_if) => {
                    self.module_bindings_are_tensors(&stmt_if.body, name, hops, bound)
                        && stmt_if.elif_else_clauses.iter().all(|clause| {
                            self.module_bindings_are_tensors(&clause.body, name, hops, bound)
                        })
                }
                Stmt::With(with) => {
                    !with
                        .items
                        .iter()
                        .filter_map(|item| item.optional_vars.as_deref())
                        .any(names)
                        && self.module_bindings_are_tensors(&with.body, name, hops, bound)
                }
                Stmt::Try(stmt_try) => {
                    self.module_bindings_are_tensors(&stmt_try.body, name, hops, bound)
                        && self.module_bindings_are_tensors(&stmt_try.orelse, name, hops, bound)
                        && self.module_bindings_are_tensors(&stmt_try.finalbody, name, hops, bound)
                        && stmt_try.handlers.iter().all(|handler| {
                            let ast::ExceptHandler::ExceptHandler(handler) = handler;
                            handler.name.as_ref().is_none_or(|n| n.id.as_str() != name)
                                && self.module_bindings_are_tensors(
                                    &handler.body,
                                    name,
                                    hops,
                                    bound,
                                )
                        })
                }
                Stmt::FunctionDef(def) => def.name.id.as_str() != name,
                Stmt::ClassDef(class) => class.name.id.as_str() != name,
                Stmt::Import(import) => !import.names.iter().any(|alias| {
                    alias.asname.as_ref().map_or_else(
                        || alias.name.id.split('.').next().unwrap_or_default(),
                        |a| a.id.as_str(),
                    ) == name
                }),
                Stmt::ImportFrom(import) => !import
                    .names
                    .iter()
                    .any(|alias| alias.asname.as_ref().unwrap_or(&alias.name).id.as_str() == name),
                Stmt::Delete(_) | Stmt::Global(_) | Stmt::Match(_) => {
                    !self.text(stmt.range()).contains(name)
                }
                _ => true,
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// The names passed first to `isinstance(` in `text` (`isinstance(p, list)` → `p`).
fn isinstance_first_names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (at, _) in text.match_indices("isinstance(") {
        let rest = text[at + "isinstance(".len()..].trim_start();
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Calls `f` with every name an assignment target binds (`a`, `a, (b, *c)`).
pub(super) fn visit_target_names(target: &Expr, f: &mut impl FnMut(&str)) {
    match target {
        Expr::Name(name) => f(name.id.as_str()),
        Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
            for element in elts {
                visit_target_names(element, f);
            }
        }
        Expr::Starred(starred) => visit_target_names(&starred.value, f),
        _ => {}
    }
}
