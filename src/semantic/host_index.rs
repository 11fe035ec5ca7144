//! Host-index facts across the project (the per-function half is `model/host_index.rs`): which
//! functions may return host values, which parameters some call passes a host value for, and
//! whether a constructor-injected module (`self.matcher(...)`) may return one. A may-analysis,
//! solved once to a fixpoint over the call edges; computed only when some finding depends on it.
//!
//! Each symbol is resolved at most once, and only when the fixpoint first needs it: resolving
//! every dependency and call again in every round took ~40% of the CPU of a scan of a large
//! tree (a `self.m()` call in a base class walks all of its subclasses).

use super::Sym;
use super::link::{FuncRef, Project, Target};
use super::summary::{FileId, FileSummary, IndexArg, IndexDep};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::OnceCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// The solved facts.
#[derive(Debug, Default)]
pub struct HostIndexFacts<'a> {
    /// Functions some `return` of which may hand back a host value.
    returns: HashSet<FuncRef>,
    /// `(function, parameter)` pairs some project call passes a host value for.
    params: HashSet<(FuncRef, &'a str)>,
    /// Some project module's `forward` may return a host value: an untyped `self.<module>(...)`
    /// call may too.
    module_forward: bool,
}

/// An [`IndexDep`] with its symbol resolved.
#[derive(Clone)]
enum ResolvedDep<'a> {
    Host,
    /// The enclosing function's parameter of this name.
    Param(&'a str),
    /// Host when one of these functions (a called function, a called class's `forward`) may
    /// return a host value.
    Returns(Rc<[FuncRef]>),
    /// `self.<attr>(...)` of a module the constructor stored, class unseen.
    InjectedModule,
}

/// A dependency, its symbol resolved on first use (most are never needed: an earlier one of
/// the same value holds, or no argument of the call does).
struct LazyDep<'a> {
    dep: &'a IndexDep,
    resolved: OnceCell<ResolvedDep<'a>>,
}

/// Per callee of a call, the parameter each host-index argument binds there (`None`: none).
type CalleeParams<'a> = Vec<(FuncRef, Vec<Option<&'a str>>)>;

/// A call with host-index arguments; its callees (with the parameter each argument binds)
/// resolved the first time one of its arguments holds a host value.
struct LazyCall<'a> {
    sym: &'a Sym,
    args: Vec<(&'a IndexArg, Vec<LazyDep<'a>>)>,
    callees: OnceCell<CalleeParams<'a>>,
}

/// A function that can take part in the fixpoint (it returns or passes on index values).
struct LazyFunction<'a> {
    file: FileId,
    func: FuncRef,
    is_forward: bool,
    returns: Vec<LazyDep<'a>>,
    calls: Vec<LazyCall<'a>>,
}

/// Resolutions shared by the dependencies and calls that name the same symbol in one file.
#[derive(Default)]
struct Memo<'a> {
    deps: HashMap<(FileId, &'a Sym, bool), ResolvedDep<'a>>,
    callees: HashMap<(FileId, &'a Sym), Rc<[FuncRef]>>,
}

/// Which functions (by position in the worklist) read which facts: registered when one of
/// their dependencies is resolved. A parameter fact is read only by its own function.
#[derive(Default)]
struct Dependents {
    returns: HashMap<FuncRef, Vec<usize>>,
    module_forward: Vec<usize>,
}

impl Dependents {
    fn note(&mut self, reader: usize, dep: &ResolvedDep<'_>) {
        match dep {
            ResolvedDep::Returns(targets) => {
                for target in targets.iter() {
                    let readers = self.returns.entry(*target).or_default();
                    if readers.last() != Some(&reader) {
                        readers.push(reader);
                    }
                }
            }
            ResolvedDep::InjectedModule => self.module_forward.push(reader),
            ResolvedDep::Host | ResolvedDep::Param(_) => {}
        }
    }
}

/// The memo and the dependents, with the function being evaluated (it reads what it resolves).
struct Lookup<'a, 'm> {
    memo: &'m mut Memo<'a>,
    dependents: &'m mut Dependents,
    reader: usize,
}

/// A fact the evaluation of one function added.
enum Change {
    Returns(FuncRef),
    Param(FuncRef),
    ModuleForward,
}

fn lazy_deps(deps: &[IndexDep]) -> Vec<LazyDep<'_>> {
    deps.iter()
        .map(|dep| LazyDep {
            dep,
            resolved: OnceCell::new(),
        })
        .collect()
}

impl HostIndexFacts<'_> {
    fn holds(&self, func: FuncRef, dep: &ResolvedDep<'_>) -> bool {
        match dep {
            ResolvedDep::Host => true,
            ResolvedDep::Param(name) => self.params.contains(&(func, *name)),
            ResolvedDep::Returns(targets) => targets.iter().any(|f| self.returns.contains(f)),
            ResolvedDep::InjectedModule => self.module_forward,
        }
    }
}

impl<'a> Project<'a> {
    pub(crate) fn solve_host_index(&self) -> HostIndexFacts<'a> {
        let functions = self.host_index_functions();
        let index_of: HashMap<FuncRef, usize> = functions
            .iter()
            .enumerate()
            .map(|(at, function)| (function.func, at))
            .collect();
        let mut memo = Memo::default();
        let mut dependents = Dependents::default();
        let mut facts = HostIndexFacts::default();
        // A worklist instead of full rounds: a function is evaluated again only when a fact one
        // of its resolved dependencies reads has changed. Every fact only grows, so a dependency
        // that held keeps holding, and one never resolved (an earlier one held) is never needed.
        let mut queued = vec![true; functions.len()];
        let mut worklist: VecDeque<usize> = (0..functions.len()).collect();
        while let Some(at) = worklist.pop_front() {
            queued[at] = false;
            let function = &functions[at];
            let (file, func) = (function.file, function.func);
            let mut changed: Vec<Change> = Vec::new();
            let mut lookup = Lookup {
                memo: &mut memo,
                dependents: &mut dependents,
                reader: at,
            };
            if !facts.returns.contains(&func)
                && self.lazy_deps_hold(&facts, &mut lookup, file, func, &function.returns)
            {
                facts.returns.insert(func);
                changed.push(Change::Returns(func));
                if function.is_forward && !facts.module_forward {
                    facts.module_forward = true;
                    changed.push(Change::ModuleForward);
                }
            }
            for call in &function.calls {
                let held: Vec<bool> = call
                    .args
                    .iter()
                    .map(|(_, deps)| self.lazy_deps_hold(&facts, &mut lookup, file, func, deps))
                    .collect();
                if !held.contains(&true) {
                    continue;
                }
                let callees = call
                    .callees
                    .get_or_init(|| self.index_call_callees(&mut *lookup.memo, file, call));
                for (callee, params) in callees {
                    for (param, _) in params.iter().zip(&held).filter(|(_, held)| **held) {
                        if let Some(name) = param
                            && facts.params.insert((*callee, name))
                        {
                            changed.push(Change::Param(*callee));
                        }
                    }
                }
            }
            for change in changed {
                let readers: &[usize] = match change {
                    Change::Returns(target) => dependents
                        .returns
                        .get(&target)
                        .map_or(&[][..], Vec::as_slice),
                    Change::Param(callee) => {
                        index_of.get(&callee).map_or(&[][..], std::slice::from_ref)
                    }
                    Change::ModuleForward => &dependents.module_forward,
                };
                for &reader in readers {
                    if !queued[reader] {
                        queued[reader] = true;
                        worklist.push_back(reader);
                    }
                }
            }
        }
        facts
    }

    /// Does one of `deps` (seen in `func` of `file`) hold a host value?
    pub(crate) fn index_deps_hold(
        &self,
        facts: &HostIndexFacts<'_>,
        file: FileId,
        func: FuncRef,
        deps: &[IndexDep],
    ) -> bool {
        deps.iter()
            .any(|dep| facts.holds(func, &self.resolve_index_dep(file, dep)))
    }

    fn lazy_deps_hold(
        &self,
        facts: &HostIndexFacts<'a>,
        lookup: &mut Lookup<'a, '_>,
        file: FileId,
        func: FuncRef,
        deps: &[LazyDep<'a>],
    ) -> bool {
        deps.iter().any(|lazy| {
            let resolved = lazy.resolved.get_or_init(|| {
                let resolved = match lazy.dep {
                    IndexDep::Returns(sym) | IndexDep::Injected(sym) => {
                        let injected = matches!(lazy.dep, IndexDep::Injected(_));
                        lookup
                            .memo
                            .deps
                            .entry((file, sym, injected))
                            .or_insert_with(|| self.resolve_index_dep(file, lazy.dep))
                            .clone()
                    }
                    dep => self.resolve_index_dep(file, dep),
                };
                lookup.dependents.note(lookup.reader, &resolved);
                resolved
            });
            facts.holds(func, resolved)
        })
    }

    /// The functions with host-index returns or call arguments, in project order.
    fn host_index_functions(&self) -> Vec<LazyFunction<'a>> {
        let files: &'a [FileSummary] = self.files;
        let mut out = Vec::new();
        for (file, summary) in files.iter().enumerate() {
            let file = file as FileId;
            for (index, info) in summary.functions.iter().enumerate() {
                let calls: Vec<LazyCall<'a>> = info
                    .calls
                    .iter()
                    .filter(|call| !call.host_index_args.is_empty())
                    .map(|call| LazyCall {
                        sym: &call.sym,
                        args: call
                            .host_index_args
                            .iter()
                            .map(|arg| (arg, lazy_deps(&arg.deps)))
                            .collect(),
                        callees: OnceCell::new(),
                    })
                    .collect();
                if info.host_index_returns.is_empty() && calls.is_empty() {
                    continue;
                }
                out.push(LazyFunction {
                    file,
                    func: (file, index as u32),
                    is_forward: info.name == "forward",
                    returns: lazy_deps(&info.host_index_returns),
                    calls,
                });
            }
        }
        out
    }

    /// The functions a call runs (a class's `__init__`), with the parameter each of its
    /// host-index arguments binds there.
    fn index_call_callees(
        &self,
        memo: &mut Memo<'a>,
        file: FileId,
        call: &LazyCall<'a>,
    ) -> CalleeParams<'a> {
        let files: &'a [FileSummary] = self.files;
        let callees = memo
            .callees
            .entry((file, call.sym))
            .or_insert_with(|| self.bound_callees(call.sym, file).into())
            .clone();
        callees
            .iter()
            .map(|&callee| {
                let callee_info = &files[callee.0 as usize].functions[callee.1 as usize];
                let params = call
                    .args
                    .iter()
                    .map(|(arg, _)| {
                        super::tensor_params::bound_param(
                            &callee_info.index_params,
                            arg.keyword.as_deref(),
                            arg.position,
                        )
                    })
                    .collect();
                (callee, params)
            })
            .collect()
    }

    fn resolve_index_dep<'d>(&self, file: FileId, dep: &'d IndexDep) -> ResolvedDep<'d> {
        match dep {
            IndexDep::Host => ResolvedDep::Host,
            IndexDep::Param(name) => ResolvedDep::Param(name),
            IndexDep::Returns(sym) | IndexDep::Injected(sym) => {
                let targets = self.resolve_sym(sym, file);
                if targets.is_empty() && matches!(dep, IndexDep::Injected(_)) {
                    return ResolvedDep::InjectedModule;
                }
                ResolvedDep::Returns(
                    targets
                        .into_iter()
                        .filter_map(|target| match target {
                            Target::Function(f) => Some(f),
                            Target::Class(class) => self.lookup_method(class, "forward", 0),
                            Target::PredicateAlias(..) | Target::VersionFlag(..) => None,
                        })
                        .collect(),
                )
            }
        }
    }
}
