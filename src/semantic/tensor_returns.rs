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
//! another call's result is not followed (one level).
//!
//! Cost: per finding that depends on it, its calls' symbols resolved and the callees' recorded
//! returns read; nothing is computed for a tree whose findings need none.

use super::Sym;
use super::link::{FuncRef, Project, Target};
use super::summary::{FileId, FuncIdx, ReturnDep, ReturnedTensor, TensorArg, TensorSource};

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
        deps.iter().any(|dep| {
            self.returning_callees(&dep.sym, file)
                .into_iter()
                .any(|callee| {
                    let info = &self.files[callee.0 as usize].functions[callee.1 as usize];
                    info.tensor_returns.iter().any(|returned| {
                        returned.position == dep.position
                            && (!mask || returned.mask)
                            && !self.eager_only_with(
                                callee.0,
                                callee.1,
                                returned.path.iter(),
                                false,
                            )
                            && self.returned_for_call(returned, callee, &dep.args, file, caller)
                    })
                })
        })
    }

    /// A return of `callee` hands back a tensor to a call passing `args`: outright, or through a
    /// parameter the call passes a tensor for.
    fn returned_for_call(
        &self,
        returned: &ReturnedTensor,
        callee: FuncRef,
        args: &[TensorArg],
        file: FileId,
        caller: Option<FuncIdx>,
    ) -> bool {
        let TensorSource::Params(params) = &returned.source else {
            return true;
        };
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
