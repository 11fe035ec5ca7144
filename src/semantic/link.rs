//! Phase 4 of `scan`: one global step over all file summaries. Resolves names across files, finds
//! the nn.Module classes, the compiled-region roots and everything they call, the project's own
//! `is_compiling` helpers — and then decides which candidate findings are real.

use super::Sym;
use super::cond::{Assumptions, Cond, ExportReading, Truth};
use super::context::{self, ConstValue, Join};
use super::data::TORCH;
use super::summary::{Candidate, CompileForm, FileId, FileSummary, FuncIdx, PathStep, Scope};
use crate::config::TorchVersion;
// FxHash: the link tables are probed per call site (keys are project names and ids, nothing
// adversarial); findings are sorted before output, so no iteration order reaches it.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// A function anywhere in the project.
pub type FuncRef = (FileId, FuncIdx);
/// A class anywhere in the project.
pub type ClassRef = (FileId, u32);

/// Which code counts as compiled.
#[derive(Clone, Debug, Default)]
pub enum RegionSource {
    /// The closure of the compile roots over the call graph, with guards evaluated (the default).
    #[default]
    Computed,
    /// Exactly these rows of these files (e.g. the lines a real compile traced, from `check`'s
    /// trace map). The trace decides which lines ran; guard formulas still decide within a
    /// statement, which a line map cannot see (a short-circuited `and` operand on a traced line).
    #[allow(dead_code)]
    // built by in-process callers (a cross-check against check's trace map)
    Lines(std::collections::HashMap<PathBuf, std::collections::HashSet<u32>>),
}

/// One pattern of `--roots` / `roots = [...]`: a glob over `module.QualName` where `*` stays
/// within one dotted segment and `**` spans segments.
#[derive(Clone, Debug)]
pub struct RootPattern {
    pub text: String,
    matcher: globset::GlobMatcher,
}

impl RootPattern {
    pub fn parse(text: &str) -> Result<RootPattern, String> {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.contains(['/', '\\']) {
            return Err(format!(
                "root pattern `{text}` is not a dotted name pattern like `pkg.models.*` or `pkg.mod.Class`"
            ));
        }
        // Dots become path separators, so globset's `*` (no separator) and `**` (any) apply.
        globset::GlobBuilder::new(&trimmed.replace('.', "/"))
            .literal_separator(true)
            .build()
            .map(|glob| RootPattern {
                text: trimmed.to_owned(),
                matcher: glob.compile_matcher(),
            })
            .map_err(|e| format!("root pattern `{text}`: {e}"))
    }

    pub fn matches(&self, dotted: &str) -> bool {
        self.matcher.is_match(dotted.replace('.', "/"))
    }

    /// A pattern with a wildcard names models (nn.Module classes) only; a function is a root only
    /// when named exactly, so `pkg.models.*` does not compile every helper in those modules.
    pub fn names_functions(&self) -> bool {
        !self.text.contains(['*', '?', '['])
    }
}

/// What the user says is compiled. Empty: every nn.Module's `forward` is a root (the default).
#[derive(Clone, Debug, Default)]
pub struct RootSpec {
    pub patterns: Vec<RootPattern>,
    /// `[tool.graphbreak.check]` case factories: absolute file and factory name (`None`: every
    /// top-level `case_*`). The nn.Modules a factory builds are compiled.
    pub case_factories: Vec<(PathBuf, Option<String>)>,
}

impl RootSpec {
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty() && self.case_factories.is_empty()
    }
}

/// How the closure first reached a function: from which caller, at which row of it (0: the
/// caller's class builds the callee's Module in `__init__`), and whether only the by-name
/// fallback of the type flow found the call.
#[derive(Clone, Copy, Debug)]
pub struct ReachedBy {
    pub caller: FuncRef,
    pub row: u32,
    pub by_name: bool,
}

/// A compiled-region root and why it is one.
#[derive(Clone, Debug)]
pub struct Root {
    pub func: FuncRef,
    pub reason: String,
}

/// The project functions a call from a file resolves to, shared by the closure's rounds (name
/// resolution is the costly part of linking a large tree).
type CalleeCache<'a> = HashMap<(FileId, &'a Sym), Vec<FuncRef>>;

/// What the traced calls pass, per called function (`flags_at_default`).
struct CallFacts {
    pinned: HashMap<FuncRef, HashSet<String>>,
    vararg_lens: HashMap<FuncRef, u32>,
    kwargs_keys: HashMap<FuncRef, HashSet<String>>,
    size_params: HashMap<FuncRef, HashSet<String>>,
    param_values: HashMap<FuncRef, HashMap<String, ConstValue>>,
    self_facts: HashMap<FuncRef, HashMap<String, bool>>,
}

pub(crate) enum Target {
    Function(FuncRef),
    Class(ClassRef),
    PredicateAlias(FileId, String),
}

pub struct Project<'a> {
    pub files: &'a [FileSummary],
    modules: HashMap<&'a str, Vec<FileId>>,
    pub(crate) module_classes: HashSet<ClassRef>,
    pub(crate) subclasses: HashMap<ClassRef, Vec<ClassRef>>,
    /// Per file, per class: its bases that resolve to project classes. Resolved once at link
    /// time: method lookup walks bases for every `self.m()` / `super().m()` call site, and
    /// resolving them again each time was a large share of the scan's CPU.
    class_bases: Vec<Vec<Vec<ClassRef>>>,
    pub in_region: HashSet<FuncRef>,
    /// Names of the project's `compiler.disable`d functions: a call whose callee's last name is
    /// not among them cannot reach one (spares resolving every call site again).
    disabled_names: HashSet<&'a str>,
    pub roots: Vec<Root>,
    pub(crate) root_funcs: HashSet<FuncRef>,
    /// With roots: per traced function, its `flag=False`-style parameters that no traced call
    /// passes (a root is called with its input only, so its `*args`/`**kwargs` are empty).
    flags_pinned: HashMap<FuncRef, HashSet<String>>,
    /// Per function, the argument count of its `*args` on every traced call (when they agree).
    vararg_lens: HashMap<FuncRef, u32>,
    /// Per function, the keywords its `**kwargs` receives on traced calls (when all are known).
    kwargs_keys: HashMap<FuncRef, HashSet<String>>,
    /// Per function, the parameters every traced call passes a torch.Size (`x.shape`) for.
    size_params: HashMap<FuncRef, HashSet<String>>,
    /// Per function, the constant every traced call gives a tested parameter (`context.rs`).
    param_values: HashMap<FuncRef, HashMap<String, ConstValue>>,
    /// Per method, the `self.<attr>` truths every traced `self.m()` call established.
    self_facts: HashMap<FuncRef, HashMap<String, bool>>,
    region_source: &'a RegionSource,
    /// With configured roots, a traced Module method reaches its submodules' forwards (without,
    /// every forward is a root already and the expansion would only cost time).
    expand_submodules: bool,
    /// Call edges and compile targets found by the type flow (`semantic/typeflow`).
    pub(crate) flow: super::typeflow::solve::FlowSolution,
    /// For each function of the region but the roots: how the closure first reached it.
    pub reached_by: HashMap<FuncRef, ReachedBy>,
    /// With configured roots: the classes that can be a receiver (instantiated somewhere in the
    /// project, or named by a root). `self.m()` reaches a subclass's override only in those —
    /// a class nobody builds (transformers' `modular_*.py` sources) cannot be `self`.
    live_classes: Option<HashSet<ClassRef>>,
    /// Host-index facts (`semantic/host_index.rs`), solved on first use.
    host_index: std::sync::OnceLock<super::host_index::HostIndexFacts<'a>>,
}

impl<'a> Project<'a> {
    pub fn link(
        files: &'a [FileSummary],
        region_source: &'a RegionSource,
        root_spec: &RootSpec,
        type_flow: bool,
    ) -> Project<'a> {
        let mut modules: HashMap<&str, Vec<FileId>> = HashMap::default();
        for (id, file) in files.iter().enumerate() {
            modules
                .entry(file.module.as_str())
                .or_default()
                .push(id as FileId);
        }
        let mut project = Project {
            files,
            modules,
            module_classes: HashSet::default(),
            subclasses: HashMap::default(),
            class_bases: Vec::new(),
            in_region: HashSet::default(),
            disabled_names: files
                .iter()
                .flat_map(|f| f.functions.iter())
                .filter(|f| f.disabled)
                .map(|f| f.name.as_str())
                .collect(),
            roots: Vec::new(),
            root_funcs: HashSet::default(),
            flags_pinned: HashMap::default(),
            vararg_lens: HashMap::default(),
            kwargs_keys: HashMap::default(),
            size_params: HashMap::default(),
            param_values: HashMap::default(),
            self_facts: HashMap::default(),
            region_source,
            expand_submodules: !root_spec.is_empty(),
            live_classes: None,
            flow: Default::default(),
            reached_by: HashMap::default(),
            host_index: std::sync::OnceLock::new(),
        };
        project.find_module_classes();
        // The whole-program type flow (`--type-flow`) is experimental: its round-based solve
        // costs seconds on a large tree and over-reaches without roots (see docs/architecture.md).
        if type_flow {
            project.flow = super::typeflow::solve::solve(&project);
        }
        if !root_spec.is_empty() {
            project.live_classes = Some(HashSet::default());
        }
        project.find_roots(root_spec);
        let mut callees = CalleeCache::default();
        project.root_funcs = project.roots.iter().map(|r| r.func).collect();
        project.in_region =
            project.closure(project.roots.iter().map(|r| r.func), &mut callees, None);
        // With roots, a class is live when a root names it or traced code builds it (more live
        // classes reach more overrides), and a `profile=False` flag no traced call passes is
        // False (fewer calls are traced): repeat until nothing changes (2–3 rounds).
        // Only with roots: without, every forward is a root, the root-input assumption is weak,
        // and a round costs ~0.15 s of CPU on transformers (the scan budget is 0.6x ruff).
        let rounds = if project.live_classes.is_some() { 6 } else { 0 };
        for _ in 0..rounds {
            let grown = project
                .live_classes
                .as_ref()
                .map(|live| project.instantiated_by(&project.in_region, live));
            let CallFacts {
                pinned,
                vararg_lens,
                kwargs_keys,
                size_params,
                param_values,
                self_facts,
            } = project.flags_at_default();
            let live_same = match (&grown, &project.live_classes) {
                (Some(grown), Some(live)) => grown.len() == live.len(),
                _ => true,
            };
            if live_same
                && pinned == project.flags_pinned
                && vararg_lens == project.vararg_lens
                && kwargs_keys == project.kwargs_keys
                && size_params == project.size_params
                && param_values == project.param_values
                && self_facts == project.self_facts
            {
                break;
            }
            project.live_classes = grown;
            project.flags_pinned = pinned;
            project.vararg_lens = vararg_lens;
            project.kwargs_keys = kwargs_keys;
            project.size_params = size_params;
            project.param_values = param_values;
            project.self_facts = self_facts;
            project.in_region =
                project.closure(project.roots.iter().map(|r| r.func), &mut callees, None);
        }
        let mut reached_by = HashMap::default();
        project.in_region = project.closure(
            project.roots.iter().map(|r| r.func),
            &mut callees,
            Some(&mut reached_by),
        );
        project.reached_by = reached_by;
        project
    }

    // ----- name resolution ------------------------------------------------------------------

    pub(crate) fn file_for_module(&self, module: &str, from: FileId) -> Option<FileId> {
        let candidates = self.modules.get(module)?;
        if candidates.len() == 1 {
            return Some(candidates[0]);
        }
        // Several top-level scripts share a name (e.g. one `helpers.py` per directory): prefer the
        // one next to the importer, then the one sharing the longest path prefix.
        // Ties go to the smallest path, so the answer never depends on the order of scan roots.
        let from_path = &self.files[from as usize].path;
        candidates.iter().copied().max_by(|&a, &b| {
            let (path_a, path_b) = (&self.files[a as usize].path, &self.files[b as usize].path);
            common_prefix_len(path_a, from_path)
                .cmp(&common_prefix_len(path_b, from_path))
                .then_with(|| path_b.cmp(path_a))
        })
    }

    pub(crate) fn resolve_dotted(&self, dotted: &str, from: FileId, depth: u32) -> Option<Target> {
        if depth > 6 {
            return None;
        }
        let segments: Vec<&str> = dotted.split('.').collect();
        for split in (1..=segments.len()).rev() {
            let module = segments[..split].join(".");
            let Some(file) = self.file_for_module(&module, from) else {
                continue;
            };
            let rest = &segments[split..];
            if rest.is_empty() {
                return None;
            }
            return self.resolve_in_file(file, &rest.join("."), depth);
        }
        None
    }

    pub(crate) fn resolve_in_file(&self, file: FileId, local: &str, depth: u32) -> Option<Target> {
        let summary = &self.files[file as usize];
        if let Some(&idx) = summary.function_by_name.get(local) {
            return Some(Target::Function((file, idx)));
        }
        if let Some(&idx) = summary.class_by_name.get(local) {
            return Some(Target::Class((file, idx)));
        }
        if summary.predicate_aliases.contains_key(local) {
            return Some(Target::PredicateAlias(file, local.to_owned()));
        }
        // A re-export: `from .utils import helper` in a package's __init__.py.
        let (first, rest) = local.split_once('.').map_or((local, ""), |(f, r)| (f, r));
        let Some(target) = summary.imports.get(first) else {
            return self.resolve_star_imported(file, first, local, depth);
        };
        let dotted = if rest.is_empty() {
            target.clone()
        } else {
            format!("{target}.{rest}")
        };
        self.resolve_dotted(&dotted, file, depth + 1)
    }

    pub(crate) fn resolve_sym(&self, sym: &Sym, file: FileId) -> Vec<Target> {
        match sym {
            Sym::Dotted(dotted) => self.resolve_dotted(dotted, file, 0).into_iter().collect(),
            Sym::Local(local) => self.resolve_in_file(file, local, 0).into_iter().collect(),
            Sym::SelfAttr { class, attr } => {
                let Some(&idx) = self.files[file as usize].class_by_name.get(class) else {
                    return Vec::new();
                };
                let found: Vec<Target> = self
                    .methods_named((file, idx), attr)
                    .into_iter()
                    .map(Target::Function)
                    .collect();
                if found.is_empty() {
                    // `self.criterion(...)` / `self.head.compute_loss(...)` where `__init__` stored
                    // `self.criterion = Loss()`: the call runs a method of the stored instance.
                    self.typed_attribute_call(file, class, attr)
                } else {
                    found
                }
            }
            Sym::Instance { class, method }
                if matches!(**class, Sym::Dotted(_) | Sym::Local(_)) =>
            {
                self.resolve_sym(class, file)
                    .into_iter()
                    .filter_map(|target| match target {
                        Target::Class(class) => {
                            self.instance_method(class, method).map(Target::Function)
                        }
                        _ => None,
                    })
                    .collect()
            }
            Sym::SuperAttr { class, attr } => {
                let Some(&idx) = self.files[file as usize].class_by_name.get(class) else {
                    return Vec::new();
                };
                let mut found = Vec::new();
                for base in self.project_bases((file, idx)) {
                    if let Some(method) = self.lookup_method(base, attr, 0) {
                        found.push(Target::Function(method));
                        break;
                    }
                }
                found
            }
            Sym::Instance { .. } => Vec::new(),
            Sym::DictValues(dict) => {
                let Sym::Dotted(dotted) = &**dict else {
                    return Vec::new();
                };
                let Some((module, name)) = dotted.rsplit_once('.') else {
                    return Vec::new();
                };
                let Some(dict_file) = self.file_for_module(module, file) else {
                    return Vec::new();
                };
                let Some(values) = self.files[dict_file as usize].module_dispatch.get(name) else {
                    return Vec::new();
                };
                values
                    .iter()
                    .filter(|value| !matches!(value, Sym::DictValues(_)))
                    .flat_map(|value| self.resolve_sym(value, dict_file))
                    .collect()
            }
        }
    }

    pub(crate) fn project_bases(&self, class: ClassRef) -> Vec<ClassRef> {
        if let Some(bases) = self
            .class_bases
            .get(class.0 as usize)
            .and_then(|file| file.get(class.1 as usize))
        {
            return bases.clone();
        }
        self.resolve_bases(class)
    }

    fn resolve_bases(&self, class: ClassRef) -> Vec<ClassRef> {
        let info = &self.files[class.0 as usize].classes[class.1 as usize];
        info.bases
            .iter()
            .flat_map(|base| self.resolve_sym(base, class.0))
            .filter_map(|target| match target {
                Target::Class(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    /// Method lookup through project base classes (depth-first, like a simple MRO).
    pub(crate) fn lookup_method(&self, class: ClassRef, name: &str, depth: u32) -> Option<FuncRef> {
        if depth > 16 {
            return None;
        }
        let file = &self.files[class.0 as usize];
        let found = with_member_name(&file.classes[class.1 as usize].qualname, name, |qual| {
            file.function_by_name.get(qual).copied()
        });
        if let Some(idx) = found {
            return Some((class.0, idx));
        }
        self.project_bases(class)
            .into_iter()
            .find_map(|base| self.lookup_method(base, name, depth + 1))
    }

    /// The method a call on `self.<attr>[.<method>]` runs, when the attribute's class is known
    /// from an assignment `self.<attr> = Class(...)` in the class.
    fn typed_attribute_call(&self, file: FileId, class: &str, attr: &str) -> Vec<Target> {
        let (stored, method) = attr.split_once('.').unwrap_or((attr, "__call__"));
        if method.contains('.') {
            return Vec::new();
        }
        // Only a class named by an import or a local definition: `self.a = self.make(...)` is a
        // method call, not a class, and must not send resolution round in circles.
        let Some(typed @ (Sym::Dotted(_) | Sym::Local(_))) = self.files[file as usize]
            .self_attr_types
            .get(class)
            .and_then(|attrs| attrs.get(stored))
        else {
            return Vec::new();
        };
        let instance = Sym::Instance {
            class: Box::new(typed.clone()),
            method: method.to_owned(),
        };
        self.resolve_sym(&instance, file)
    }

    /// The function that runs for `instance.method(...)` on an instance of `class`; calling the
    /// instance itself (`__call__`) runs `forward` for an nn.Module without its own `__call__`.
    pub(crate) fn instance_method(&self, class: ClassRef, method: &str) -> Option<FuncRef> {
        self.lookup_method(class, method, 0).or_else(|| {
            (method == "__call__" && self.module_classes.contains(&class))
                .then(|| self.module_forward(class))
                .flatten()
        })
    }

    /// The `forward` calling a Module of `class` runs: none when a project class decorator
    /// replaced it with a dispatcher that runs the class's own `forward` only as a fallback
    /// (`model/dispatch.rs`).
    pub(crate) fn module_forward(&self, class: ClassRef) -> Option<FuncRef> {
        let forward = self.lookup_method(class, "forward", 0)?;
        let owner = self.files[forward.0 as usize].functions[forward.1 as usize]
            .class
            .as_deref()
            .and_then(|qual| self.files[forward.0 as usize].class_by_name.get(qual))
            .map(|&idx| (forward.0, idx));
        let dispatched = [Some(class), owner]
            .into_iter()
            .flatten()
            .any(|c| self.forward_replaced_by_decorator(c));
        (!dispatched).then_some(forward)
    }

    fn forward_replaced_by_decorator(&self, class: ClassRef) -> bool {
        self.files[class.0 as usize].classes[class.1 as usize]
            .decorators
            .iter()
            .any(|decorator| {
                self.resolve_sym(decorator, class.0)
                    .into_iter()
                    .any(|target| match target {
                        Target::Function((file, idx)) => {
                            self.files[file as usize].functions[idx as usize].replaces_forward
                        }
                        _ => false,
                    })
            })
    }

    /// `self.name(...)` may run the class's own (or inherited) method, or an override in any
    /// project subclass — Dynamo traces whichever the instance has.
    fn methods_named(&self, class: ClassRef, name: &str) -> Vec<FuncRef> {
        let mut found: Vec<FuncRef> = self.lookup_method(class, name, 0).into_iter().collect();
        // Most classes have no project subclass: spare the queue and the seen set.
        let Some(direct) = self.subclasses.get(&class) else {
            return found;
        };
        let mut queue: VecDeque<ClassRef> = direct.iter().copied().collect();
        let mut seen = HashSet::default();
        while let Some(sub) = queue.pop_front() {
            if !seen.insert(sub) {
                continue;
            }
            let file = &self.files[sub.0 as usize];
            let live = self
                .live_classes
                .as_ref()
                .is_none_or(|live| live.contains(&sub));
            if live
                && let Some(idx) =
                    with_member_name(&file.classes[sub.1 as usize].qualname, name, |qual| {
                        file.function_by_name.get(qual).copied()
                    })
            {
                found.push((sub.0, idx));
            }
            queue.extend(self.subclasses.get(&sub).into_iter().flatten().copied());
        }
        found
    }

    // ----- classes and regions --------------------------------------------------------------

    /// For each function traced calls reach, the flag parameters none of those calls passes, and
    /// the number of arguments its `*args` receives when every traced call passes the same.
    fn flags_at_default(&self) -> CallFacts {
        // Only calls that can reach a function with flags matter: filter by the called name
        // before resolving (resolution is the costly part on large trees).
        // A constructor call (`DynamicCache(config=...)`) passes its arguments to `__init__`: the
        // class's name counts as a called name of an `__init__` with flags.
        let flagged_names: HashSet<&str> = self
            .files
            .iter()
            .flat_map(|file| file.functions.iter())
            .filter(|f| {
                !f.flag_params.is_empty()
                    || f.vararg.is_some()
                    || !f.size_checked_params.is_empty()
                    || !f.const_params.is_empty()
                    || f.tests_self_attrs
            })
            .flat_map(|f| {
                let class_name = (f.name == "__init__")
                    .then_some(f.class.as_deref())
                    .flatten()
                    .map(|class| class.rsplit('.').next().unwrap_or(class));
                std::iter::once(f.name.as_str()).chain(class_name)
            })
            .collect();
        let mut passed: HashMap<FuncRef, HashSet<String>> = HashMap::default();
        // `None`: the traced calls disagree, or one spreads `*x` into it.
        let mut vararg_counts: HashMap<FuncRef, Option<u32>> = HashMap::default();
        // The keywords traced calls pass into a function's `**kwargs` (`None`: unknown).
        let mut kwargs_counts: HashMap<FuncRef, Option<HashSet<String>>> = HashMap::default();
        // The size-checked parameters every traced call so far passed a torch.Size for.
        let mut sized: HashMap<FuncRef, HashSet<String>> = HashMap::default();
        // Caller context (`context.rs`): tested parameters' constants, `self.<attr>` truths.
        let mut constants: HashMap<FuncRef, Join<String, ConstValue>> = HashMap::default();
        let mut self_truths: HashMap<FuncRef, Join<String, bool>> = HashMap::default();
        for &caller in &self.in_region {
            let info = &self.files[caller.0 as usize].functions[caller.1 as usize];
            let caller_is_root = self.root_funcs.contains(&caller);
            for call in &info.calls {
                let Some(args) = &call.args else { continue };
                if !flagged_names.contains(call.sym.last_segment()) {
                    continue;
                }
                if !call.path.is_empty() && self.eager_only(caller.0, caller.1, call.path.iter()) {
                    continue;
                }
                // A root's own `*args` / `**kwargs` are empty: it is called with its input.
                let spread_is_empty = |spread: &Option<String>, own: &Option<String>| match spread {
                    None => true,
                    Some(name) => caller_is_root && own.as_deref() == Some(name.as_str()),
                };
                let forwards_own =
                    |spread: &Option<String>, own: &Option<String>| match (spread, own) {
                        (Some(spread), Some(own)) => spread == own,
                        _ => false,
                    };
                // Forwarding its own `*args` that every traced call leaves empty passes nothing
                // (`DFlashCache(config=c)` → `super().__init__(*args, **kwargs)`).
                let own_star_len = forwards_own(&args.star, &info.vararg)
                    .then(|| self.vararg_lens.get(&caller).copied())
                    .flatten();
                let star_empty =
                    spread_is_empty(&args.star, &info.vararg) || own_star_len == Some(0);
                let double_star_empty = spread_is_empty(&args.double_star, &info.kwarg);
                // ... and its own `**kwargs` passes the keywords the traced calls gave it.
                let own_keywords = forwards_own(&args.double_star, &info.kwarg)
                    .then(|| self.kwargs_keys.get(&caller))
                    .flatten();
                for target in self.resolve_sym(&call.sym, caller.0) {
                    let callee = match target {
                        Target::Function(callee) => callee,
                        Target::Class(class) => match self.lookup_method(class, "__init__", 0) {
                            Some(init) => init,
                            None => continue,
                        },
                        Target::PredicateAlias(..) => continue,
                    };
                    let callee_info = &self.files[callee.0 as usize].functions[callee.1 as usize];
                    if callee_info.vararg.is_some() {
                        let spread = match &args.star {
                            None => Some(0),
                            Some(_) => own_star_len,
                        };
                        let count = spread.map(|spread| {
                            (args.positional.len() as u32 + spread)
                                .saturating_sub(callee_info.fixed_positional)
                        });
                        vararg_counts
                            .entry(callee)
                            .and_modify(|known| {
                                if *known != count {
                                    *known = None;
                                }
                            })
                            .or_insert(count);
                    }
                    if callee_info.kwarg.is_some() {
                        let keys = match &args.double_star {
                            None => Some(args.keywords.iter().map(|(k, _)| k.clone()).collect()),
                            Some(_) => own_keywords.map(|own| {
                                let mut keys: Vec<String> =
                                    args.keywords.iter().map(|(k, _)| k.clone()).collect();
                                keys.extend(own.iter().cloned());
                                keys
                            }),
                        };
                        kwargs_counts
                            .entry(callee)
                            .and_modify(|known: &mut Option<HashSet<String>>| {
                                match (known.as_mut(), &keys) {
                                    (Some(known), Some(keys)) => known.extend(keys.iter().cloned()),
                                    _ => *known = None,
                                }
                            })
                            .or_insert_with(|| keys.map(|keys| keys.into_iter().collect()));
                    }
                    if !callee_info.size_checked_params.is_empty() {
                        let passes_size: HashSet<String> = callee_info
                            .size_checked_params
                            .iter()
                            .filter(|(name, position)| {
                                position.is_some_and(|p| args.size_positions.contains(&p))
                                    || args.size_keywords.iter().any(|k| k == name)
                            })
                            .map(|(name, _)| name.clone())
                            .collect();
                        sized
                            .entry(callee)
                            .and_modify(|known| known.retain(|name| passes_size.contains(name)))
                            .or_insert(passes_size);
                    }
                    if !callee_info.const_params.is_empty() {
                        let join = constants.entry(callee).or_default();
                        for (name, position) in &callee_info.const_params {
                            let value = context::edge_value(
                                args,
                                callee_info,
                                name,
                                *position,
                                star_empty,
                                own_keywords.map_or(double_star_empty, |own| !own.contains(name)),
                                self.param_values.get(&caller),
                            );
                            join.add(name.clone(), value);
                        }
                    }
                    if callee_info.tests_self_attrs {
                        // Only a `self.m()` call of method `m` is made on the same object
                        // (`self.sub(x)` calls another module's `forward`).
                        let facts = match &call.sym {
                            Sym::SelfAttr { attr, .. } | Sym::SuperAttr { attr, .. }
                                if *attr == callee_info.name =>
                            {
                                context::self_facts(
                                    &call.path,
                                    &self.files[caller.0 as usize].guards,
                                )
                            }
                            _ => Vec::new(),
                        };
                        let first = !self_truths.contains_key(&callee);
                        self_truths
                            .entry(callee)
                            .or_default()
                            .add_all(first, &facts);
                    }
                    let flags = &callee_info.flag_params;
                    // Passing the caller's own flag that is still at its default passes nothing.
                    let passes = |value: &Option<String>| match value {
                        Some(variable) => !self
                            .flags_pinned
                            .get(&caller)
                            .is_some_and(|pinned| pinned.contains(variable)),
                        None => true,
                    };
                    // ... and so does a literal the flag's default reads the same as
                    // (`child=False`; `None` for a `None` default).
                    let none_flag = |name: &str| callee_info.none_flags.iter().any(|f| f == name);
                    // A variable counts as the constant it is known to hold: the caller's
                    // parameter every traced call gives that constant (a forwarded `copy`).
                    let caller_values = self.param_values.get(&caller);
                    let at_default =
                        |name: &str,
                         constant: Option<&Option<ConstValue>>,
                         variable: Option<&Option<String>>| {
                            let known = context::known_constant(constant, variable, caller_values);
                            match known {
                                Some(ConstValue::None) => true,
                                Some(constant) => !none_flag(name) && !constant.truthy(),
                                None => false,
                            }
                        };
                    let entry = passed.entry(callee).or_default();
                    for (name, position) in flags {
                        let by_position = position.is_some_and(|p| {
                            !star_empty
                                || (args.positional.get(p as usize).is_some_and(passes)
                                    && !at_default(
                                        name,
                                        args.positional_consts.get(p as usize),
                                        args.positional.get(p as usize),
                                    ))
                        });
                        let by_keyword = match own_keywords {
                            Some(own) => own.contains(name),
                            None => !double_star_empty,
                        } || args.keywords.iter().enumerate().any(
                            |(i, (keyword, value))| {
                                keyword == name
                                    && passes(value)
                                    && !at_default(name, args.keyword_consts.get(i), Some(value))
                            },
                        );
                        if by_position || by_keyword {
                            entry.insert(name.clone());
                        }
                    }
                }
            }
        }
        let size_params = sized
            .into_iter()
            .filter(|(callee, params)| !self.root_funcs.contains(callee) && !params.is_empty())
            .collect();
        let kwargs_keys = kwargs_counts
            .into_iter()
            .filter(|(callee, _)| !self.root_funcs.contains(callee))
            .filter_map(|(callee, keys)| Some((callee, keys?)))
            .collect();
        let vararg_lens = vararg_counts
            .into_iter()
            .filter(|(callee, _)| !self.root_funcs.contains(callee))
            .filter_map(|(callee, count)| Some((callee, count?)))
            .collect();
        let pinned = passed
            .into_iter()
            .filter(|(callee, _)| !self.root_funcs.contains(callee))
            .map(|(callee, passed)| {
                let flags = &self.files[callee.0 as usize].functions[callee.1 as usize].flag_params;
                let pinned: HashSet<String> = flags
                    .iter()
                    .map(|(name, _)| name.clone())
                    .filter(|name| !passed.contains(name))
                    .collect();
                (callee, pinned)
            })
            .filter(|(_, pinned)| !pinned.is_empty())
            .collect();
        let not_root = |callee: &FuncRef| !self.root_funcs.contains(callee);
        let param_values = constants
            .into_iter()
            .filter(|(callee, _)| not_root(callee))
            .map(|(callee, join)| (callee, join.agreed()))
            .filter(|(_, values)| !values.is_empty())
            .collect();
        let self_facts = self_truths
            .into_iter()
            .filter(|(callee, _)| not_root(callee))
            .map(|(callee, join)| (callee, join.agreed()))
            .filter(|(_, facts)| !facts.is_empty())
            .collect();
        CallFacts {
            pinned,
            vararg_lens,
            kwargs_keys,
            size_params,
            param_values,
            self_facts,
        }
    }

    /// `live` plus every project class the given functions call (instantiate).
    fn instantiated_by(
        &self,
        functions: &HashSet<FuncRef>,
        live: &HashSet<ClassRef>,
    ) -> HashSet<ClassRef> {
        let mut grown = live.clone();
        for &(file, idx) in functions {
            // Objects the type flow sees the traced code build or call into.
            for edge in self.flow.edges.get(&(file, idx)).into_iter().flatten() {
                grown.extend(edge.receiver);
            }
            for call in &self.files[file as usize].functions[idx as usize].calls {
                for target in self.resolve_sym(&call.sym, file) {
                    if let Target::Class(class) = target {
                        grown.insert(class);
                    }
                }
            }
        }
        grown
    }

    fn find_module_classes(&mut self) {
        let mut direct: Vec<ClassRef> = Vec::new();
        let mut subclasses: HashMap<ClassRef, Vec<ClassRef>> = HashMap::default();
        let mut class_bases = Vec::with_capacity(self.files.len());
        for (file_id, file) in self.files.iter().enumerate() {
            let mut file_bases = Vec::with_capacity(file.classes.len());
            for (class_idx, class) in file.classes.iter().enumerate() {
                let me = (file_id as FileId, class_idx as u32);
                for base in &class.bases {
                    let external = match base {
                        Sym::Dotted(dotted) => Some(std::borrow::Cow::Borrowed(dotted.as_str())),
                        _ => self
                            .external_base(base, file_id as FileId)
                            .map(std::borrow::Cow::Owned),
                    };
                    if external.is_some_and(|dotted| TORCH.is_module_base(&dotted)) {
                        direct.push(me);
                    }
                }
                let bases = self.resolve_bases(me);
                for &parent in &bases {
                    subclasses.entry(parent).or_default().push(me);
                }
                file_bases.push(bases);
            }
            class_bases.push(file_bases);
        }
        self.class_bases = class_bases;
        let mut queue: VecDeque<ClassRef> = direct.into();
        while let Some(class) = queue.pop_front() {
            if self.module_classes.insert(class) {
                queue.extend(subclasses.get(&class).into_iter().flatten().copied());
            }
        }
        self.subclasses = subclasses;
    }

    fn find_roots(&mut self, spec: &RootSpec) {
        let mut roots: Vec<Root> = Vec::new();
        let mut seen: HashSet<FuncRef> = HashSet::default();
        let mut add = |func: FuncRef, reason: String, roots: &mut Vec<Root>| {
            if seen.insert(func) {
                roots.push(Root { func, reason });
            }
        };
        for (file_id, file) in self.files.iter().enumerate() {
            let file_id = file_id as FileId;
            for (idx, function) in file.functions.iter().enumerate() {
                if function.compile_decorated {
                    add(
                        (file_id, idx as FuncIdx),
                        "@torch.compile".to_owned(),
                        &mut roots,
                    );
                }
            }
            for target in &file.compile_roots {
                let (resolved, via) = self.resolve_compile_target(&target.sym, file_id);
                for target_ref in resolved {
                    let reason = format!(
                        "{} in {}",
                        match target.form {
                            CompileForm::TorchCompile => "torch.compile(...)",
                            CompileForm::ModuleMethod => ".compile()",
                        },
                        file.module
                    ) + via;
                    match target_ref {
                        Target::Function(func) if target.form == CompileForm::TorchCompile => {
                            add(func, reason, &mut roots)
                        }
                        Target::Class(class) => {
                            if let Some(live) = &mut self.live_classes {
                                live.insert(class);
                            }
                            if let Some(forward) = self.module_forward(class) {
                                add(forward, reason, &mut roots);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        // `torch.compile(x)` where the type flow knows what `x` holds (a model a factory built,
        // `self.f = torch.compile(self.g)`).
        for root in &self.flow.roots {
            let file = &self.files[root.file as usize];
            let form = if root.module_method {
                ".compile()"
            } else {
                "torch.compile(...)"
            };
            add(
                root.func,
                format!("{form} in {} (via type flow)", file.module),
                &mut roots,
            );
        }
        if spec.is_empty() {
            // No roots configured: every nn.Module's forward may be compiled.
            for (file_id, file) in self.files.iter().enumerate() {
                let file_id = file_id as FileId;
                for (idx, function) in file.functions.iter().enumerate() {
                    if function.name == "forward"
                        && let Some(class) = &function.class
                        && let Some(&class_idx) = file.class_by_name.get(class)
                        && self.module_classes.contains(&(file_id, class_idx))
                        && self.module_forward((file_id, class_idx))
                            == Some((file_id, idx as FuncIdx))
                    {
                        add(
                            (file_id, idx as FuncIdx),
                            "nn.Module forward (no roots configured)".to_owned(),
                            &mut roots,
                        );
                    }
                }
            }
        }
        for pattern in &spec.patterns {
            for (file_id, file) in self.files.iter().enumerate() {
                let file_id = file_id as FileId;
                let module_matches = pattern.matches(&file.module);
                for (class_idx, class) in file.classes.iter().enumerate() {
                    let class_ref = (file_id, class_idx as u32);
                    if !self.module_classes.contains(&class_ref) {
                        continue;
                    }
                    let matched = (module_matches && !class.qualname.contains('.'))
                        || pattern.matches(&format!("{}.{}", file.module, class.qualname));
                    if matched && let Some(live) = &mut self.live_classes {
                        live.insert(class_ref);
                    }
                    if matched && let Some(forward) = self.module_forward(class_ref) {
                        add(forward, format!("--roots {}", pattern.text), &mut roots);
                    }
                }
                if !pattern.names_functions() {
                    continue;
                }
                for (qualname, &idx) in &file.function_by_name {
                    if pattern.matches(&format!("{}.{qualname}", file.module)) {
                        add(
                            (file_id, idx),
                            format!("--roots {}", pattern.text),
                            &mut roots,
                        );
                    }
                }
            }
        }
        for (path, factory) in &spec.case_factories {
            for (file_id, file) in self.files.iter().enumerate() {
                if &file.path != path {
                    continue;
                }
                let file_id = file_id as FileId;
                for (idx, function) in file.functions.iter().enumerate() {
                    let wanted = function.class.is_none()
                        && match factory {
                            Some(name) => &function.name == name,
                            None => function.name.starts_with("case_"),
                        };
                    if !wanted {
                        continue;
                    }
                    let reason = format!("check case {}::{}", file.module, function.name);
                    for (class, forward) in self.modules_built_by((file_id, idx as FuncIdx), 3) {
                        if let Some(live) = &mut self.live_classes {
                            live.insert(class);
                        }
                        add(forward, reason.clone(), &mut roots);
                    }
                }
            }
        }
        self.roots = roots;
    }

    /// The `forward`s of the nn.Modules a factory instantiates, itself or through the project
    /// functions it calls, up to `max_depth` calls deep (`build_model("nano")` → `Detector(...)`).
    fn modules_built_by(&self, factory: FuncRef, max_depth: u32) -> Vec<(ClassRef, FuncRef)> {
        let mut out = Vec::new();
        let mut queue: VecDeque<(FuncRef, u32)> = VecDeque::from([(factory, 0)]);
        let mut visited: HashSet<FuncRef> = HashSet::default();
        while let Some((func, depth)) = queue.pop_front() {
            if !visited.insert(func) {
                continue;
            }
            let info = &self.files[func.0 as usize].functions[func.1 as usize];
            for call in &info.calls {
                for target in self.resolve_sym(&call.sym, func.0) {
                    match target {
                        Target::Class(class) if self.module_classes.contains(&class) => {
                            if let Some(forward) = self.module_forward(class) {
                                out.push((class, forward));
                            }
                        }
                        Target::Function(callee) if depth < max_depth => {
                            queue.push_back((callee, depth + 1))
                        }
                        _ => {}
                    }
                }
            }
        }
        out
    }

    /// The `forward`s of the nn.Modules `func` itself instantiates (memoized in `cache`: helpers
    /// such as `post_init()` are called from thousands of `__init__`s).
    fn modules_built_directly(
        &self,
        func: FuncRef,
        cache: &mut HashMap<FuncRef, Vec<FuncRef>>,
    ) -> Vec<FuncRef> {
        if let Some(found) = cache.get(&func) {
            return found.clone();
        }
        let found: Vec<FuncRef> = self
            .modules_built_by(func, 0)
            .into_iter()
            .map(|(_, forward)| forward)
            .collect();
        cache.insert(func, found.clone());
        found
    }

    /// What a compile target names: `self.model` typed by `self.model = Cls(...)` in the class,
    /// else the symbol itself. The second value says how it was resolved, for `--show-roots`.
    fn resolve_compile_target(&self, sym: &Sym, file: FileId) -> (Vec<Target>, &'static str) {
        if let Sym::SelfAttr { class, attr } = sym
            && let Some(typed) = self.files[file as usize]
                .self_attr_types
                .get(class.as_str())
                .and_then(|attrs| attrs.get(attr.as_str()))
        {
            return (self.resolve_sym(typed, file), " (via self attribute)");
        }
        (self.resolve_sym(sym, file), "")
    }

    /// Every function reachable from `roots` over the call graph (`@torch.compiler.disable`
    /// stops it; `disable(recursive=False)` skips only its own frame). With roots, a traced
    /// method of an nn.Module also reaches the `forward` of every Module its `__init__` builds
    /// (`self.layers = nn.ModuleList([Block() ...])`, directly or one call deep): calling a
    /// submodule runs its forward.
    fn closure(
        &self,
        roots: impl Iterator<Item = FuncRef>,
        cache: &mut CalleeCache<'a>,
        mut reached_by: Option<&mut HashMap<FuncRef, ReachedBy>>,
    ) -> HashSet<FuncRef> {
        let mut in_region = HashSet::default();
        let mut queue: VecDeque<FuncRef> = roots.collect();
        // Records the first caller of each function (breadth first: a shortest chain).
        let mut note = |callee: FuncRef, caller: FuncRef, row: u32, by_name: bool| {
            if let Some(map) = reached_by.as_deref_mut() {
                map.entry(callee).or_insert(ReachedBy {
                    caller,
                    row,
                    by_name,
                });
            }
        };
        let mut visited: HashSet<FuncRef> = HashSet::default();
        let mut expanded: HashSet<ClassRef> = HashSet::default();
        let mut built: HashMap<FuncRef, Vec<FuncRef>> = HashMap::default();
        while let Some(func) = queue.pop_front() {
            let file = &self.files[func.0 as usize];
            let info = &file.functions[func.1 as usize];
            if info.disabled || !visited.insert(func) {
                continue;
            }
            if !info.disabled_frame_only {
                in_region.insert(func);
            }
            if self.expand_submodules
                && let Some(class) = &info.class
                && let Some(&class_idx) = file.class_by_name.get(class)
                && self.module_classes.contains(&(func.0, class_idx))
                && expanded.insert((func.0, class_idx))
            {
                // Submodules are built while constructing the model: in `__init__` and what it
                // calls (`self._make_layer(...)`), not in `init_criterion()` called from `loss()`.
                if let Some(&init) = file.function_by_name.get(&format!("{class}.__init__")) {
                    let init = (func.0, init);
                    let mut forwards = self.modules_built_directly(init, &mut built);
                    for call in &self.files[init.0 as usize].functions[init.1 as usize].calls {
                        for target in self.resolve_sym(&call.sym, init.0) {
                            if let Target::Function(callee) = target {
                                forwards.extend(self.modules_built_directly(callee, &mut built));
                            }
                        }
                    }
                    for forward in forwards {
                        note(forward, func, 0, false);
                        queue.push_back(forward);
                    }
                }
            }
            for call in &info.calls {
                // `if not is_compiling(): self.debug(x)`, `if isinstance(x, dict): return
                // self.loss(x)`: a call Dynamo never traces does not compile its callee.
                if !call.path.is_empty() && self.eager_only(func.0, func.1, call.path.iter()) {
                    continue;
                }
                let callees = cache
                    .entry((func.0, &call.sym))
                    .or_insert_with(|| self.call_targets(&call.sym, func.0));
                for &callee in callees.iter() {
                    note(callee, func, call.row, false);
                    queue.push_back(callee);
                }
            }
            // What the type flow adds: callees of objects built elsewhere.
            if let Some(edges) = self.flow.edges.get(&func) {
                let calls = &file.flow.functions[func.1 as usize].calls;
                for edge in edges {
                    let call = &calls[edge.call as usize];
                    if !call.path.is_empty() && self.eager_only(func.0, func.1, call.path.iter()) {
                        continue;
                    }
                    note(edge.callee, func, call.row, edge.by_name);
                    queue.push_back(edge.callee);
                }
            }
        }
        in_region
    }

    /// How many functions one root reaches (itself included), for `--show-roots`.
    pub fn reach_count(&self, root: FuncRef) -> usize {
        self.closure(std::iter::once(root), &mut CalleeCache::default(), None)
            .len()
    }

    /// Whether a project class is an nn.Module (through project bases, aliases or the table's
    /// third-party bases): what a root pattern must name, and whose `forward` may go unreached.
    pub fn is_module_class(&self, class: ClassRef) -> bool {
        self.module_classes.contains(&class)
    }

    /// `module.QualName` and row of a function, for `--show-roots`.
    pub fn describe(&self, func: FuncRef) -> (String, &Path, u32) {
        let file = &self.files[func.0 as usize];
        let info = &file.functions[func.1 as usize];
        let qualname = file
            .function_by_name
            .iter()
            .find(|(_, idx)| **idx == func.1)
            .map_or(info.name.as_str(), |(name, _)| name.as_str());
        let dotted = if file.module.is_empty() {
            qualname.to_owned()
        } else {
            format!("{}.{qualname}", file.module)
        };
        (dotted, &file.path, info.line)
    }

    /// The guard formula a call to `sym` evaluates to, when it calls a project predicate.
    pub fn predicate_formula(&self, sym: &Sym, file: FileId) -> Option<Cond> {
        match self.resolve_sym(sym, file).into_iter().next()? {
            Target::Function((file, idx)) => {
                let predicate = self.files[file as usize].functions[idx as usize]
                    .predicate
                    .as_ref()?;
                Some(self.localize(predicate, file))
            }
            Target::PredicateAlias(file, name) => {
                Some(self.localize(&self.files[file as usize].predicate_aliases[&name], file))
            }
            Target::Class(_) => None,
        }
    }

    /// Project atoms inside a formula are relative to the file that wrote them; inline them
    /// one level so the formula can be evaluated from any file.
    fn localize(&self, cond: &Cond, file: FileId) -> Cond {
        self.localize_depth(cond, file, 0)
    }

    fn localize_depth(&self, cond: &Cond, file: FileId, depth: u32) -> Cond {
        if depth > 6 {
            return Cond::Unknown;
        }
        match cond {
            Cond::Atom(super::cond::Atom::Call(sym)) => {
                match self.resolve_sym(sym, file).into_iter().next() {
                    Some(Target::Function((f, idx))) => {
                        match &self.files[f as usize].functions[idx as usize].predicate {
                            Some(inner) => self.localize_depth(inner, f, depth + 1),
                            None => Cond::Unknown,
                        }
                    }
                    Some(Target::PredicateAlias(f, name)) => self.localize_depth(
                        &self.files[f as usize].predicate_aliases[&name],
                        f,
                        depth + 1,
                    ),
                    _ => Cond::Unknown,
                }
            }
            // A flag parameter means something only inside its own function.
            Cond::Atom(
                super::cond::Atom::FlagParam(_)
                | super::cond::Atom::VarargLen(..)
                | super::cond::Atom::ParamIsSize(..)
                | super::cond::Atom::ParamTest(..)
                | super::cond::Atom::SelfAttr { .. },
            ) => Cond::Unknown,
            Cond::Not(inner) => Cond::Not(Box::new(self.localize_depth(inner, file, depth))),
            Cond::Choice(a, b) => Cond::Choice(
                Box::new(self.localize_depth(a, file, depth)),
                Box::new(self.localize_depth(b, file, depth)),
            ),
            Cond::And(items) => Cond::And(
                items
                    .iter()
                    .map(|c| self.localize_depth(c, file, depth))
                    .collect(),
            ),
            Cond::Or(items) => Cond::Or(
                items
                    .iter()
                    .map(|c| self.localize_depth(c, file, depth))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    // ----- deciding findings ----------------------------------------------------------------

    /// Is a finding with this path unreachable while Dynamo traces (eager-only or failure-only
    /// code)?
    fn eager_only<'p>(
        &self,
        file: FileId,
        func: FuncIdx,
        path: impl IntoIterator<Item = &'p PathStep>,
    ) -> bool {
        let summary = &self.files[file as usize];
        let resolve = |sym: &Sym| self.predicate_formula(sym, file);
        let assume = Assumptions {
            torch_floor: summary.torch_floor,
            export_reading: ExportReading::FromTable,
            input_is_tensor: summary.functions[func as usize].name == "forward"
                && self.root_funcs.contains(&(file, func)),
            flag_at_default: &|name: &str| {
                self.flags_pinned
                    .get(&(file, func))
                    .is_some_and(|pinned| pinned.contains(name))
            },
            vararg_len: self.vararg_lens.get(&(file, func)).copied(),
            param_is_size: &|name: &str| {
                self.size_params
                    .get(&(file, func))
                    .is_some_and(|params| params.contains(name))
            },
            param_value: &|name: &str| {
                self.param_values
                    .get(&(file, func))
                    .and_then(|values| values.get(name))
                    .cloned()
            },
            self_attr: &|attr: &str| {
                self.self_facts
                    .get(&(file, func))
                    .and_then(|facts| facts.get(attr))
                    .copied()
            },
            resolve_call: &resolve,
        };
        path.into_iter().any(|step| match *step {
            PathStep::Guard(guard, branch) => {
                let truth = summary.guards[guard as usize].cond.eval(&assume);
                let taken = match truth {
                    Truth::True => super::summary::Branch::WhenTrue,
                    Truth::False => super::summary::Branch::WhenFalse,
                    Truth::Unknown => return false,
                };
                taken != branch
            }
            PathStep::AfterException | PathStep::FailureOnly | PathStep::MisuseOnly => true,
        })
    }

    /// Is the code of this finding traced by Dynamo?
    pub fn is_traced(&self, file: FileId, candidate: &Candidate) -> bool {
        match self.region_source {
            RegionSource::Computed => match candidate.func {
                Some(func) => {
                    self.in_region.contains(&(file, func))
                        && !self.eager_only(file, func, &candidate.path)
                }
                None => false,
            },
            RegionSource::Lines(lines) => {
                let (first, last) = candidate.statement_rows;
                lines
                    .get(&self.files[file as usize].path)
                    .is_some_and(|rows| (first..=last).any(|row| rows.contains(&row)))
                    && !candidate.func.is_some_and(|func| {
                        // Only the guards: whether an exception handler or a failure path ran,
                        // the map knows.
                        let guards = candidate
                            .path
                            .iter()
                            .filter(|step| matches!(step, PathStep::Guard(..)));
                        self.eager_only(file, func, guards)
                    })
            }
        }
    }

    /// False only when nothing in function `func` can be traced: a cheap filter before costly
    /// work on a candidate (`is_traced` still decides).
    pub fn may_trace(&self, file: FileId, func: FuncIdx) -> bool {
        match self.region_source {
            RegionSource::Computed => self.in_region.contains(&(file, func)),
            RegionSource::Lines(_) => true,
        }
    }

    /// Is a guard at `row` of function `func` in traced code?
    pub fn guard_traced(&self, file: FileId, func: FuncIdx, row: u32) -> bool {
        match self.region_source {
            RegionSource::Computed => self.in_region.contains(&(file, func)),
            RegionSource::Lines(lines) => lines
                .get(&self.files[file as usize].path)
                .is_some_and(|rows| rows.contains(&row)),
        }
    }

    /// The function a call to `sym` (from `file`) reaches when Dynamo never traces it
    /// (`@torch.compiler.disable`, not `recursive=False`): its qualified name, file and line.
    pub fn disabled_callee(&self, sym: &Sym, file: FileId) -> Option<(String, &'a Path, u32)> {
        // Whatever `sym` resolves to, a disabled target's name is among `disabled_names`.
        if self.disabled_names.is_empty() {
            return None;
        }
        // `instance(...)` runs the class's `__call__` or, for a Module, its `forward`.
        if let Sym::Instance { method, .. } = sym
            && method == "__call__"
            && !self.disabled_names.contains("__call__")
            && !self.disabled_names.contains("forward")
        {
            return None;
        }
        let last = match sym {
            Sym::Dotted(name) | Sym::Local(name) => name.rsplit('.').next(),
            Sym::SelfAttr { attr, .. } | Sym::SuperAttr { attr, .. } => attr.rsplit('.').next(),
            // `instance(...)` may run `forward`: no cheap name to test.
            Sym::Instance { method, .. } if method != "__call__" => Some(method.as_str()),
            Sym::Instance { .. } | Sym::DictValues(_) => None,
        };
        if last.is_some_and(|name| !self.disabled_names.contains(name)) {
            return None;
        }
        self.resolve_sym(sym, file)
            .into_iter()
            .find_map(|target| match target {
                Target::Function((callee_file, idx)) => {
                    let summary = &self.files[callee_file as usize];
                    let info = &summary.functions[idx as usize];
                    info.disabled
                        .then(|| (info.qualified_name(), summary.path.as_path(), info.line))
                }
                _ => None,
            })
    }

    /// The first write to outside state in the function(s) `sym` names (a checkpointed body):
    /// the function, its name and file, and the write.
    pub fn outside_write_of(
        &self,
        sym: &Sym,
        file: FileId,
    ) -> Option<(FuncRef, String, &'a Path, &'a super::summary::OutsideWrite)> {
        self.resolve_sym(sym, file)
            .into_iter()
            .find_map(|target| match target {
                Target::Function((callee_file, idx)) => {
                    let summary = &self.files[callee_file as usize];
                    let info = &summary.functions[idx as usize];
                    let write = info.outside_writes.first()?;
                    Some((
                        (callee_file, idx),
                        info.qualified_name(),
                        summary.path.as_path(),
                        write,
                    ))
                }
                _ => None,
            })
    }

    /// The functions a call to `sym` runs: the callee; for a class, its `__init__` (building an
    /// object in traced code runs it: a loss module constructed inside a loss function); for a
    /// property getter, also what it returns (`self.loss_function(...)` calls
    /// `LOSS_MAPPING[self.loss_type]`).
    fn call_targets(&self, sym: &Sym, file: FileId) -> Vec<FuncRef> {
        let mut out = Vec::new();
        for target in self.resolve_sym(sym, file) {
            match target {
                Target::Function(callee) => {
                    out.push(callee);
                    let getter = &self.files[callee.0 as usize].functions[callee.1 as usize];
                    if getter.is_property {
                        for returned in &getter.returned_callables {
                            for target in self.resolve_sym(returned, callee.0) {
                                match target {
                                    Target::Function(f) => out.push(f),
                                    Target::Class(class) => {
                                        out.extend(self.lookup_method(class, "__init__", 0))
                                    }
                                    Target::PredicateAlias(..) => {}
                                }
                            }
                        }
                    }
                }
                Target::Class(class) => out.extend(self.lookup_method(class, "__init__", 0)),
                Target::PredicateAlias(..) => {}
            }
        }
        out
    }

    /// The literal boolean default of `field` in the class `class` names (as seen from `file`),
    /// searching its project bases too: the declaring class's name, file and the declaration.
    pub fn field_default(
        &self,
        class: &Sym,
        file: FileId,
        field: &str,
    ) -> Option<(&'a str, &'a Path, &'a super::gates::FieldDefault)> {
        let mut queue: VecDeque<ClassRef> = self
            .resolve_sym(class, file)
            .into_iter()
            .filter_map(|t| match t {
                Target::Class(class) => Some(class),
                _ => None,
            })
            .collect();
        let mut seen = HashSet::default();
        while let Some(class) = queue.pop_front() {
            if !seen.insert(class) || seen.len() > 32 {
                continue;
            }
            let file_summary = &self.files[class.0 as usize];
            let info = &file_summary.classes[class.1 as usize];
            if let Some(found) = info.fields.iter().find(|f| f.name == field) {
                return Some((info.qualname.as_str(), file_summary.path.as_path(), found));
            }
            queue.extend(self.project_bases(class));
        }
        None
    }

    /// The findings of one file that survive linking (rules' project hooks add theirs separately).
    pub fn findings(&self, file: FileId) -> Vec<&Candidate> {
        let summary = &self.files[file as usize];
        // Computed only for files with a version-bound finding (rare: VR001 on an old floor).
        let called_at = if summary.candidates.iter().any(|c| c.holds_below.is_some()) {
            self.called_only_at(file)
        } else {
            HashMap::default()
        };
        summary
            .file_diagnostics
            .iter()
            .chain(summary.candidates.iter().filter(|c| {
                let in_scope = match c.scope {
                    Scope::Anywhere => true,
                    Scope::CompiledRegion => self.is_traced(file, c),
                };
                in_scope
                    && c.host_index.as_ref().is_none_or(|deps| {
                        let facts = self.host_index.get_or_init(|| self.solve_host_index());
                        c.func
                            .is_some_and(|f| self.index_deps_hold(facts, file, (file, f), deps))
                    })
                    && !c.holds_below.as_ref().is_some_and(|bound| {
                        // After an assertion in its own function, or called only after one.
                        let own = bound
                            .asserted
                            .iter()
                            .filter_map(|flag| self.version_flag(flag, file))
                            .max();
                        let callers = c.func.and_then(|f| called_at.get(&f).copied());
                        own.max(callers).is_some_and(|at| at >= bound.below)
                    })
            }))
            .collect()
    }

    /// Per function of this file, the lowest torch version on which the project calls it: every
    /// call of it follows a top-level `assert TORCH_X_Y` (or `if not TORCH_X_Y: raise`) in its
    /// caller (`model/versions.rs`). Functions with an unguarded call, or none, are absent.
    fn called_only_at(&self, file: FileId) -> HashMap<FuncIdx, TorchVersion> {
        let summary = &self.files[file as usize];
        let wanted: HashSet<&str> = summary
            .candidates
            .iter()
            .filter(|c| c.holds_below.is_some())
            .filter_map(|c| c.func)
            .map(|f| summary.functions[f as usize].name.as_str())
            .collect();
        let mut lowest: HashMap<FuncIdx, Option<TorchVersion>> = HashMap::default();
        for (caller_file, caller_summary) in self.files.iter().enumerate() {
            let caller_file = caller_file as FileId;
            for (caller, info) in caller_summary.functions.iter().enumerate() {
                for (index, call) in info.calls.iter().enumerate() {
                    if !wanted.contains(call.sym.last_segment()) {
                        continue;
                    }
                    for target in self.resolve_sym(&call.sym, caller_file) {
                        let Target::Function((callee_file, callee)) = target else {
                            continue;
                        };
                        if callee_file != file {
                            continue;
                        }
                        let asserted = caller_summary
                            .gated_calls
                            .iter()
                            .find(|g| g.func == caller as FuncIdx && g.call == index as u32)
                            .and_then(|g| {
                                g.flags
                                    .iter()
                                    .filter_map(|flag| self.version_flag(flag, caller_file))
                                    .max()
                            });
                        lowest
                            .entry(callee)
                            .and_modify(|known| {
                                *known = match (*known, asserted) {
                                    (Some(a), Some(b)) => Some(a.min(b)),
                                    _ => None,
                                }
                            })
                            .or_insert(asserted);
                    }
                }
            }
        }
        lowest
            .into_iter()
            .filter_map(|(func, version)| Some((func, version?)))
            .collect()
    }

    /// The version a module-level flag (`TORCH_2_8 = check_version(...)`) asserts.
    fn version_flag(&self, flag: &Sym, from: FileId) -> Option<TorchVersion> {
        match flag {
            Sym::Local(name) => self.files[from as usize].version_flags.get(name).copied(),
            Sym::Dotted(dotted) => {
                let (module, name) = dotted.rsplit_once('.')?;
                let file = self.file_for_module(module, from)?;
                self.files[file as usize].version_flags.get(name).copied()
            }
            _ => None,
        }
    }
}

fn common_prefix_len(a: &Path, b: &Path) -> usize {
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Calls `f` with `"{class}.{name}"`, built on the stack when short: method lookups run for
/// every call site and a heap `String` per lookup showed in profiles.
fn with_member_name<R>(class: &str, name: &str, f: impl FnOnce(&str) -> R) -> R {
    const CAP: usize = 256;
    let len = class.len() + 1 + name.len();
    if len > CAP {
        return f(&format!("{class}.{name}"));
    }
    let mut buf = [0u8; CAP];
    buf[..class.len()].copy_from_slice(class.as_bytes());
    buf[class.len()] = b'.';
    buf[class.len() + 1..len].copy_from_slice(name.as_bytes());
    // Two UTF-8 strings joined by an ASCII byte are UTF-8.
    f(std::str::from_utf8(&buf[..len]).unwrap_or_default())
}
