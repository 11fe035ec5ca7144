//! Tensor parameters across the project (the per-call half is `model/tensor_args.rs`): which
//! parameters some call passes a tensor for, so that a test of a parameter the body alone cannot
//! type (`def fn(x, check): if check:`) is a branch on a tensor where it is called with one.
//!
//! The calls that count are the ones Dynamo traces into the function with their arguments:
//! calls of a compiled function of the file (`opt = torch.compile(fn)` or
//! `torch._dynamo.optimize(b)(fn)`, then `opt(x, torch.ones(1))`; an `@torch.compile` function
//! called), wherever they are, and calls between traced functions (`helper(x, flag)` in a
//! function of the region, on a path Dynamo traces). An argument is a tensor outright, or when
//! one of the caller's own parameters is (`TensorSource::Params`): solved to a fixpoint, each
//! binding looked at once per parameter fact that can make it hold. A may-analysis ("some call
//! site passes a tensor"): a branch is reported when it breaks in some traced context.
//!
//! Cost: O(call edges with tensor arguments) to collect (each callee symbol resolved once per
//! file), O(bindings) to solve; computed once, and only when some finding depends on it.

use super::Sym;
use super::link::{FuncRef, Project, Target};
use super::summary::{FileId, TensorSource};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// The solved facts: `(function, parameter)` pairs some counted call passes a tensor for.
#[derive(Debug, Default)]
pub struct TensorParamFacts<'a> {
    params: HashSet<(FuncRef, &'a str)>,
    /// The pairs some counted call passes a boolean mask for (a subset of `params`).
    masks: HashSet<(FuncRef, &'a str)>,
}

impl TensorParamFacts<'_> {
    /// Does some call pass a tensor for one of `params` of `func`?
    pub fn any(&self, func: FuncRef, params: &[String]) -> bool {
        params
            .iter()
            .any(|param| self.params.contains(&(func, param.as_str())))
    }

    /// Does some call pass a boolean mask for one of `params` of `func`?
    pub fn any_mask(&self, func: FuncRef, params: &[String]) -> bool {
        params
            .iter()
            .any(|param| self.masks.contains(&(func, param.as_str())))
    }
}

/// One argument bound to one parameter: `callee`'s `param` receives a tensor when `source`
/// holds in `caller`.
struct Binding<'a> {
    caller: Option<FuncRef>,
    callee: FuncRef,
    param: &'a str,
    source: &'a TensorSource,
    /// The argument is a boolean mask once it is a tensor.
    mask: bool,
}

impl<'a> Project<'a> {
    pub(crate) fn solve_tensor_params(&self) -> TensorParamFacts<'a> {
        let bindings = self.tensor_bindings();
        let mut facts = TensorParamFacts::default();
        // (caller, parameter) → the bindings that hold once that parameter is a tensor.
        let mut waiting: HashMap<(FuncRef, &'a str), Vec<usize>> = HashMap::default();
        let mut queue: Vec<(FuncRef, &'a str)> = Vec::new();
        // A root's inputs come from its user: its parameters annotated as tensors hold tensors
        // (scan reads such a parameter as a tensor in the body already; this carries it to what
        // the hypothesis asks of it: the elements a loop over it binds).
        for &(file, func) in &self.root_funcs {
            let info = &self.files[file as usize].functions[func as usize];
            for param in &info.tensor_annotated_params {
                if facts.params.insert(((file, func), param.as_str())) {
                    queue.push(((file, func), param.as_str()));
                }
            }
            // `edge_type: OptTensor` with `OptTensor = Optional[Tensor]` in the project's typing
            // module: the alias says what the annotation does.
            for (param, alias) in &info.alias_annotated_params {
                if self.is_tensor_alias(alias, file, 0)
                    && facts.params.insert(((file, func), param.as_str()))
                {
                    queue.push(((file, func), param.as_str()));
                }
            }
        }
        for (at, binding) in bindings.iter().enumerate() {
            match (binding.source, binding.caller) {
                (TensorSource::Tensor, _) => {
                    if binding.mask {
                        facts.masks.insert((binding.callee, binding.param));
                    }
                    if facts.params.insert((binding.callee, binding.param)) {
                        queue.push((binding.callee, binding.param));
                    }
                }
                (TensorSource::Params(params), Some(caller)) => {
                    for param in params.iter() {
                        waiting
                            .entry((caller, param.as_str()))
                            .or_default()
                            .push(at);
                    }
                }
                (TensorSource::Params(_), None) => {}
            }
        }
        while let Some(fact) = queue.pop() {
            let Some(readers) = waiting.remove(&fact) else {
                continue;
            };
            for at in readers {
                let binding = &bindings[at];
                if binding.mask {
                    facts.masks.insert((binding.callee, binding.param));
                }
                if facts.params.insert((binding.callee, binding.param)) {
                    queue.push((binding.callee, binding.param));
                }
            }
        }
        facts
    }

    /// Every counted call's tensor arguments, bound to the parameters of the functions it runs.
    fn tensor_bindings(&self) -> Vec<Binding<'a>> {
        let files = self.files;
        let mut out = Vec::new();
        for (file, summary) in files.iter().enumerate() {
            let file = file as FileId;
            for call in &summary.compiled_calls {
                for (param, source, mask) in call.args.iter() {
                    out.push(Binding {
                        caller: call.caller.map(|caller| (file, caller)),
                        callee: (file, call.func),
                        param,
                        source,
                        mask: *mask,
                    });
                }
            }
        }
        // Calls between traced functions, in project order (the region is a set).
        let mut traced: Vec<FuncRef> = self.in_region.iter().copied().collect();
        traced.sort_unstable();
        let mut callees: HashMap<(FileId, &'a Sym), Vec<FuncRef>> = HashMap::default();
        for caller in traced {
            let info = &files[caller.0 as usize].functions[caller.1 as usize];
            for call in &info.calls {
                if call.tensor_args.is_empty()
                    || !call.path.is_empty()
                        && self.eager_only_with(caller.0, caller.1, call.path.iter(), false)
                {
                    continue;
                }
                let targets = callees
                    .entry((caller.0, &call.sym))
                    .or_insert_with(|| self.bound_callees(&call.sym, caller.0));
                for &callee in targets.iter() {
                    let params =
                        &files[callee.0 as usize].functions[callee.1 as usize].index_params;
                    for arg in call.tensor_args.iter() {
                        if let Some(param) =
                            bound_param(params, arg.keyword.as_deref(), arg.position)
                        {
                            out.push(Binding {
                                caller: Some(caller),
                                callee,
                                param,
                                source: &arg.source,
                                mask: arg.mask,
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// Does `sym` (read in `file`) name a module-level tensor type alias of the project
    /// (`FileSummary::tensor_aliases`), directly or through re-exports (a few hops)?
    fn is_tensor_alias(&self, sym: &Sym, file: FileId, depth: u32) -> bool {
        if depth > 4 {
            return false;
        }
        match sym {
            Sym::Local(name) => self.files[file as usize].tensor_aliases.contains(name),
            Sym::Dotted(dotted) => {
                let Some((module, name)) = dotted.rsplit_once('.') else {
                    return false;
                };
                self.modules.get(module).is_some_and(|files| {
                    files.iter().any(|&defining| {
                        let summary = &self.files[defining as usize];
                        summary.tensor_aliases.iter().any(|alias| alias == name)
                            || summary.imports.get(name).is_some_and(|target| {
                                self.is_tensor_alias(
                                    &Sym::Dotted(target.clone()),
                                    defining,
                                    depth + 1,
                                )
                            })
                    })
                })
            }
            _ => false,
        }
    }

    /// The functions whose parameters a call's arguments bind: the callee, or a class's
    /// `__init__` (its arguments after `self`).
    pub(crate) fn bound_callees(&self, sym: &Sym, file: FileId) -> Vec<FuncRef> {
        self.resolve_sym(sym, file)
            .into_iter()
            .filter_map(|target| match target {
                Target::Function(callee) => Some(callee),
                Target::Class(class) => self.lookup_method(class, "__init__", 0),
                Target::PredicateAlias(..) | Target::VersionFlag(..) => None,
            })
            .collect()
    }
}

/// The parameter of `params` (name, position after `self`; `None` for keyword-only) that a call
/// argument binds: by `keyword`, or by `position` among the positional arguments.
pub(crate) fn bound_param<'p>(
    params: &'p [(String, Option<u32>)],
    keyword: Option<&str>,
    position: Option<u32>,
) -> Option<&'p str> {
    params
        .iter()
        .find(|(name, at)| match (keyword, position) {
            (Some(keyword), _) => name == keyword,
            (None, Some(position)) => *at == Some(position),
            (None, None) => false,
        })
        .map(|(name, _)| name.as_str())
}
