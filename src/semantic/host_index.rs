//! Host-index facts across the project (the per-function half is `model/host_index.rs`): which
//! functions may return host values, which parameters some call passes a host value for, and
//! whether a constructor-injected module (`self.matcher(...)`) may return one. A may-analysis,
//! solved once to a fixpoint over the call edges; computed only when some finding depends on it.

use super::link::{FuncRef, Project, Target};
use super::summary::{FileId, IndexDep};
use rustc_hash::FxHashSet as HashSet;

/// The solved facts.
#[derive(Debug, Default)]
pub struct HostIndexFacts {
    /// Functions some `return` of which may hand back a host value.
    returns: HashSet<FuncRef>,
    /// `(function, parameter)` pairs some project call passes a host value for.
    params: HashSet<(FuncRef, String)>,
    /// Some project module's `forward` may return a host value: an untyped `self.<module>(...)`
    /// call may too.
    module_forward: bool,
}

/// Rounds of the fixpoint (each follows one more call or return; real chains are 3–5 deep).
const MAX_ROUNDS: usize = 12;

impl Project<'_> {
    pub(crate) fn solve_host_index(&self) -> HostIndexFacts {
        let mut facts = HostIndexFacts::default();
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for (file, summary) in self.files.iter().enumerate() {
                let file = file as FileId;
                for (index, info) in summary.functions.iter().enumerate() {
                    let func: FuncRef = (file, index as u32);
                    if !facts.returns.contains(&func)
                        && self.index_deps_hold(&facts, file, func, &info.host_index_returns)
                    {
                        facts.returns.insert(func);
                        if info.name == "forward" && !facts.module_forward {
                            facts.module_forward = true;
                        }
                        changed = true;
                    }
                    for call in &info.calls {
                        if call.host_index_args.is_empty() {
                            continue;
                        }
                        let held: Vec<_> = call
                            .host_index_args
                            .iter()
                            .filter(|arg| self.index_deps_hold(&facts, file, func, &arg.deps))
                            .collect();
                        if held.is_empty() {
                            continue;
                        }
                        for target in self.resolve_sym(&call.sym, file) {
                            let callee = match target {
                                Target::Function(callee) => callee,
                                Target::Class(class) => {
                                    match self.lookup_method(class, "__init__", 0) {
                                        Some(init) => init,
                                        None => continue,
                                    }
                                }
                                Target::PredicateAlias(..) => continue,
                            };
                            let callee_info =
                                &self.files[callee.0 as usize].functions[callee.1 as usize];
                            for arg in &held {
                                let param = callee_info.index_params.iter().find(
                                    |(name, position)| match (&arg.keyword, arg.position) {
                                        (Some(keyword), _) => name == keyword,
                                        (None, Some(at)) => *position == Some(at),
                                        (None, None) => false,
                                    },
                                );
                                if let Some((name, _)) = param
                                    && facts.params.insert((callee, name.clone()))
                                {
                                    changed = true;
                                }
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        facts
    }

    /// Does one of `deps` (seen in `func` of `file`) hold a host value?
    pub(crate) fn index_deps_hold(
        &self,
        facts: &HostIndexFacts,
        file: FileId,
        func: FuncRef,
        deps: &[IndexDep],
    ) -> bool {
        deps.iter().any(|dep| match dep {
            IndexDep::Host => true,
            IndexDep::Param(name) => facts.params.contains(&(func, name.clone())),
            IndexDep::Returns(sym) | IndexDep::Injected(sym) => {
                let targets = self.resolve_sym(sym, file);
                if targets.is_empty() {
                    // `self.matcher(...)`: a module the constructor stored, class unseen.
                    return matches!(dep, IndexDep::Injected(_)) && facts.module_forward;
                }
                targets.into_iter().any(|target| match target {
                    Target::Function(f) => facts.returns.contains(&f),
                    Target::Class(class) => self
                        .lookup_method(class, "forward", 0)
                        .is_some_and(|f| facts.returns.contains(&f)),
                    Target::PredicateAlias(..) => false,
                })
            }
        })
    }
}
