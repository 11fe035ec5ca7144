//! Tensors through returns across the project (the per-file half is `model/tensor_returns.rs`):
//! whether a project call returns a tensor (or a boolean mask), as a whole or as one element of a
//! returned tuple, so that a local bound to its result is read as one (`h, mask = helper(x)`
//! then `h[mask]`).
//!
//! A callee's `return` counts when its value is a tensor outright, or is one through the callee's
//! own parameters and this call passes a tensor for one of them (outright, or through the
//! caller's parameters where some traced call passes one: `semantic/tensor_params.rs`). The
//! arguments are the call's own: a helper that returns `x.to(torch.int64)` under some guard and
//! `int(x)` otherwise returns a tensor to a caller that passes one, not to one that passes an
//! int. A may-answer over the callee's returns and the functions the call may run. A return of
//! another project call's result (`return helper(x)`, `y = helper(x); return y`) is followed to
//! that call's callees, up to `MAX_RETURN_HOPS` calls deep; there the inner call's arguments are
//! read in the callee's own context (its parameters: where some traced call passes a tensor).
//!
//! Cost: per finding that depends on it, its calls' symbols resolved and the callees' recorded
//! returns read; nothing is computed for a tree whose findings need none.

use super::Sym;
use super::link::{FuncRef, Project, Target};
use super::summary::{FileId, FuncIdx, ReturnDep, ReturnedTensor, TensorArg, TensorSource};

/// Calls followed through returns of returns (recursion ends here too).
const MAX_RETURN_HOPS: u32 = 4;

impl Project<'_> {
    /// Does some callee of one of `deps` (calls in function `caller` of `file`) return a tensor
    /// (a boolean mask when `mask`) where its local was bound?
    pub(crate) fn tensor_returns_hold(
        &self,
        file: FileId,
        caller: Option<FuncIdx>,
        deps: &[ReturnDep],
        mask: bool,
    ) -> bool {
        self.tensor_returns_hold_within(file, caller, deps, mask, 0)
    }

    /// `depth`: the calls followed so far, through callees that return what another call
    /// returns.
    fn tensor_returns_hold_within(
        &self,
        file: FileId,
        caller: Option<FuncIdx>,
        deps: &[ReturnDep],
        mask: bool,
        depth: u32,
    ) -> bool {
        deps.iter().any(|dep| {
            self.returning_callees(&dep.sym, file)
                .into_iter()
                .any(|callee| {
                    let info = &self.files[callee.0 as usize].functions[callee.1 as usize];
                    info.tensor_returns.iter().any(|returned| {
                        (returned.position == dep.position || passes_on_whole(returned))
                            && (!mask || returned.mask)
                            && !self.eager_only_with(
                                callee.0,
                                callee.1,
                                returned.path.iter(),
                                false,
                            )
                            && self.returned_for_call(
                                returned,
                                callee,
                                (dep, file, caller),
                                mask,
                                depth,
                            )
                    })
                })
        })
    }

    /// A return of `callee` hands back a tensor to a call passing `args` (from function `caller`
    /// of `file`): outright, through a parameter the call passes a tensor for, or because a call
    /// the callee makes returns one.
    fn returned_for_call(
        &self,
        returned: &ReturnedTensor,
        callee: FuncRef,
        (dep, file, caller): (&ReturnDep, FileId, Option<FuncIdx>),
        mask: bool,
        depth: u32,
    ) -> bool {
        let TensorSource::Params(params) = &returned.source else {
            return true;
        };
        if self.params_passed_tensors(params, callee, &dep.args, file, caller) {
            return true;
        }
        if depth >= MAX_RETURN_HOPS || returned.through.is_empty() {
            return false;
        }
        // `return helper(x)` handed to `a, b = outer(...)`: `b` is position 1 of what `helper`
        // returns.
        let repositioned: Vec<ReturnDep>;
        let through = if returned.position != dep.position {
            repositioned = returned
                .through
                .iter()
                .map(|inner| ReturnDep {
                    position: dep.position,
                    ..inner.clone()
                })
                .collect();
            &repositioned[..]
        } else {
            &returned.through[..]
        };
        self.tensor_returns_hold_within(callee.0, Some(callee.1), through, mask, depth + 1)
    }

    /// The call passes a tensor (outright, or through the caller's parameters where some traced
    /// call passes one) for one of the callee's `params`.
    fn params_passed_tensors(
        &self,
        params: &[String],
        callee: FuncRef,
        args: &[TensorArg],
        file: FileId,
        caller: Option<FuncIdx>,
    ) -> bool {
        if params.is_empty() {
            return false;
        }
        let positions = &self.files[callee.0 as usize].functions[callee.1 as usize].index_params;
        args.iter().any(|arg| {
            let Some(param) =
                super::tensor_params::bound_param(positions, arg.keyword.as_deref(), arg.position)
            else {
                return false;
            };
            if !params.iter().any(|p| p == param) {
                return false;
            }
            match &arg.source {
                TensorSource::Tensor => true,
                TensorSource::Params(caller_params) => caller.is_some_and(|f| {
                    self.tensor_params
                        .get_or_init(|| self.solve_tensor_params())
                        .any((file, f), caller_params)
                }),
            }
        })
    }

    /// The functions a call of `sym` runs and returns the result of: a function or method; for
    /// a call through `self.<attr>` that resolves to a class, that module's `forward` (calling an
    /// instance). A class called by name is constructed: it returns an instance, no tensor.
    fn returning_callees(&self, sym: &Sym, file: FileId) -> Vec<FuncRef> {
        let through_instance = matches!(sym, Sym::SelfAttr { .. });
        self.resolve_sym(sym, file)
            .into_iter()
            .filter_map(|target| match target {
                Target::Function(callee) => Some(callee),
                Target::Class(class) if through_instance => self.lookup_method(class, "forward", 0),
                Target::Class(_) | Target::PredicateAlias(..) | Target::VersionFlag(..) => None,
            })
            .collect()
    }
}

/// A return that hands back, as it is, the whole of what project calls return (`return
/// helper(x)`): an element of it is the same element of theirs.
fn passes_on_whole(returned: &ReturnedTensor) -> bool {
    returned.position.is_none()
        && matches!(&returned.source, TensorSource::Params(params) if params.is_empty())
        && !returned.through.is_empty()
        && returned
            .through
            .iter()
            .all(|inner| inner.position.is_none())
}
