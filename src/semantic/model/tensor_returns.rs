//! Tensors through returns: what a project function's `return`s hand back, and which locals hold
//! what a project call returned, so that `h, mask = helper(x)` then `h[mask]` or `if flag:` is
//! read with the callee's answer.
//!
//! Why: a local bound to a call's result is as much a tensor as the value the callee returns
//! (Python passes the object back unchanged), and Dynamo traces into the callee and back. Inside
//! one file the model cannot see a callee in another file, so this is symbolic, as for parameters
//! (`model/tensor_args.rs`): each function records the tensors its returns hand back, outright
//! or through its own parameters (`ReturnedTensor`); a local records the call and tuple position
//! it was bound from, with the call's tensor arguments (`ReturnDep`); a finding that needs such a
//! local to be a tensor carries the dependency (`Candidate::tensor_returns`), and linking solves
//! it (`semantic/tensor_returns.rs`).
//!
//! Only what the syntax shows is followed: a returned tuple display (`return out, mask`) by
//! position, any other returned value as a whole; a local bound by `y = f(...)` or by unpacking
//! the call (`a, b = f(...)`, no starred target). A rebinding of the name forgets it. A return
//! of what another project call returns (`return helper(x)`, or `y = helper(x)` then
//! `return y`) records that call (`ReturnedTensor::through`), solved when linking.
//!
//! Cost: one `tensor_kind` per returned value (two for an unknown one), one map entry per local
//! bound from a project call (its tensor arguments are the ones its call edge recorded).

use super::*;
use crate::semantic::summary::{Branch, ReturnDep, ReturnedTensor, TensorArg, TensorSource};

impl<'a> SemanticModel<'a> {
    /// Records the tensors a `return` of the current function hands back.
    pub(crate) fn note_returned_tensors(&mut self, stmt: &Stmt) {
        let Stmt::Return(ret) = stmt else { return };
        let Some(value) = ret.value.as_deref() else {
            return;
        };
        let Some(func) = self.current_function() else {
            return;
        };
        let mut found = Vec::new();
        match value {
            Expr::Tuple(tuple) => {
                for (position, element) in tuple.elts.iter().enumerate() {
                    if matches!(element, Expr::Starred(_)) {
                        break;
                    }
                    self.returned_tensors(element, Some(position as u32), &mut found, 0);
                }
            }
            other => self.returned_tensors(other, None, &mut found, 0),
        }
        let returns = &mut self.summary.functions[func as usize].tensor_returns;
        for returned in found {
            if !returns.contains(&returned) {
                returns.push(returned);
            }
        }
    }

    /// The tensor `value` returns at `position`; a conditional expression, each branch under
    /// its test (`x.to(torch.int64) if torch.jit.is_tracing() else int(x)`: only the `int`
    /// branch is traced).
    fn returned_tensors(
        &mut self,
        value: &Expr,
        position: Option<u32>,
        found: &mut Vec<ReturnedTensor>,
        depth: u32,
    ) {
        if let Expr::If(ternary) = value
            && depth < 4
        {
            for (branch, taken) in [(&*ternary.body, true), (&*ternary.orelse, false)] {
                let mark = self.mark();
                self.enter_guard(&ternary.test, Branch::taken_when(taken));
                self.returned_tensors(branch, position, found, depth + 1);
                self.restore(mark);
            }
            return;
        }
        let (source, through): (TensorSource, Box<[ReturnDep]>) = match self.tensor_kind(value) {
            TensorKind::Tensor => (TensorSource::Tensor, Box::default()),
            TensorKind::NotTensor => return,
            // `return helper(x)`: what the callee returns, as it is.
            TensorKind::Unknown => match self.returned_call(value) {
                Some(dep) => (TensorSource::Params(Box::default()), Box::new([dep])),
                None => match self.tensor_if_inputs_are(value) {
                    Some(used) => (
                        TensorSource::Params(used.params.into()),
                        used.returns
                            .unwrap_or_default()
                            .into_iter()
                            .map(|(_, dep)| dep)
                            .collect(),
                    ),
                    None => return,
                },
            },
        };
        let mask = match &source {
            TensorSource::Tensor => self.is_bool_mask_element(value, value),
            // Through a call: a mask where the callee returns one (asked when linking).
            TensorSource::Params(_) if matches!(value, Expr::Call(_)) => true,
            TensorSource::Params(_) => self
                .holds_if_inputs_are_tensors(|| self.is_bool_mask_element(value, value))
                .is_some(),
        };
        found.push(ReturnedTensor {
            position,
            source,
            mask,
            path: self.path().into(),
            through,
        });
    }

    /// `value` is a call of a project function (`return helper(x)`, `y = helper(x)`): what that
    /// call returns, as a whole.
    fn returned_call(&self, value: &Expr) -> Option<ReturnDep> {
        let Expr::Call(call) = value else {
            return None;
        };
        let sym = self.project_call_sym(call)?;
        let args = self.recorded_tensor_args(&sym, call);
        Some(ReturnDep {
            sym,
            position: None,
            args,
        })
    }

    /// Notes which locals `targets = value` binds to what a project call returns, and forgets
    /// the others it rebinds.
    pub(super) fn note_returned_locals(&mut self, targets: &[&'a Expr], value: &'a Expr) {
        let call = self.returned_call(value);
        let Some(frame) = self.function_frame_mut() else {
            return;
        };
        for target in targets {
            match target {
                Expr::Name(name) => {
                    let id = name.id.as_str();
                    match &call {
                        Some(dep) => {
                            frame.returned.insert(id.to_owned(), dep.clone());
                        }
                        None => {
                            frame.returned.remove(id);
                        }
                    }
                }
                Expr::Tuple(ast::ExprTuple { elts, .. })
                | Expr::List(ast::ExprList { elts, .. }) => {
                    let starred = elts.iter().any(|e| matches!(e, Expr::Starred(_)));
                    for (position, element) in elts.iter().enumerate() {
                        let Expr::Name(name) = element else { continue };
                        let id = name.id.as_str();
                        match &call {
                            Some(dep) if !starred => {
                                frame.returned.insert(
                                    id.to_owned(),
                                    ReturnDep {
                                        position: Some(position as u32),
                                        ..dep.clone()
                                    },
                                );
                            }
                            _ => {
                                frame.returned.remove(id);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// What project call (and tuple position) the local `name` was last bound to, when its
    /// kind is otherwise unknown.
    pub fn returned_origin(&self, name: &str) -> Option<ReturnDep> {
        let frame = self.function_frame()?;
        if frame.locals.get(name) != Some(&TensorKind::Unknown) {
            return None;
        }
        frame.returned.get(name).cloned()
    }

    /// The tensor arguments of `call`: those its call edge recorded when the walk visited it
    /// (the value is visited before the assignment binds), else computed here.
    fn recorded_tensor_args(&self, sym: &Sym, call: &ast::ExprCall) -> Box<[TensorArg]> {
        let row = self.row(call.start().into());
        self.current_function()
            .and_then(|func| {
                self.summary.functions[func as usize]
                    .calls
                    .iter()
                    .rev()
                    .take(16)
                    .find(|edge| edge.row == row && &edge.sym == sym)
                    .map(|edge| edge.tensor_args.clone())
            })
            .unwrap_or_else(|| self.tensor_args(&call.arguments))
    }

    /// The project symbol a call runs, when the file can tell it may be one (a function or
    /// class of this file, a method through `self` / `super()`, a name imported from the
    /// project): linking decides what it is.
    fn project_call_sym(&self, call: &ast::ExprCall) -> Option<Sym> {
        match self.resolve(&call.func)? {
            Sym::Dotted(dotted) if !self.is_project_dotted(&dotted) => None,
            sym @ (Sym::Local(_)
            | Sym::SelfAttr { .. }
            | Sym::Dotted(_)
            | Sym::SuperAttr { .. }) => Some(sym),
            _ => None,
        }
    }
}
