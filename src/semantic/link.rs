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

pub use frame_skips::CertainBreakAt;

mod call_facts;
mod frame_skips;
mod option_args;
mod property_reads;
mod queries;
mod resolve;
mod roots;
mod torch_hooks;

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
    /// Every compile naming it passes `fullgraph=True`.
    pub fullgraph: bool,
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
    /// A module-level torch-version flag (`summary.torch_version_flags`).
    VersionFlag(FileId, String),
}

/// One answer of `Project::member_and_overrides`, kept in `Project::member_memo`.
pub(crate) struct MemberAnswer {
    name: Box<str>,
    counts_unknown: bool,
    methods: Box<[FuncRef]>,
}

pub struct Project<'a> {
    pub files: &'a [FileSummary],
    pub(super) modules: HashMap<&'a str, Vec<FileId>>,
    pub(crate) module_classes: HashSet<ClassRef>,
    /// Project subclasses of `torch.autograd.Function`: `Cls.apply(x)` runs `Cls.forward`.
    pub(crate) autograd_functions: HashSet<ClassRef>,
    pub(crate) subclasses: HashMap<ClassRef, Vec<ClassRef>>,
    /// Per file, per class: its bases that resolve to project classes. Resolved once at link
    /// time: method lookup walks bases for every `self.m()` / `super().m()` call site, and
    /// resolving them again each time was a large share of the scan's CPU.
    class_bases: Vec<Vec<Vec<ClassRef>>>,
    pub in_region: HashSet<FuncRef>,
    /// The functions of the region that only `fullgraph=True` roots reach: a scalar read there
    /// is captured from torch 2.11, or raises, instead of breaking (`rules/data/scalar_reads.toml`).
    pub fullgraph_only: HashSet<FuncRef>,
    /// The functions passed as a `torch.cond` branch: Dynamo cannot break inside one, so a break
    /// there makes the `torch.cond` call raise (`UncapturedHigherOrderOpError`), eagerly or
    /// compiled. Each with the row of a `torch.cond` call that passes it.
    pub cond_branches: HashMap<FuncRef, (FileId, u32)>,
    /// Names of the project's `compiler.disable`d functions: a call whose callee's last name is
    /// not among them cannot reach one (spares resolving every call site again).
    disabled_names: HashSet<&'a str>,
    /// Names of the project's property getters: a collaborator's attribute read whose name is
    /// none of them runs no getter (spares typing the receiver and walking its subclasses for
    /// every `self.config.hidden_size`; `link/property_reads.rs`).
    pub(crate) property_names: HashSet<&'a str>,
    pub roots: Vec<Root>,
    /// Modules whose classes a wildcard root pattern matched but does not root: private modules
    /// nothing outside them imports (`link/roots.rs`), with the pattern, for `--show-roots`.
    pub roots_left_out: Vec<(String, String)>,
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
    /// `member_and_overrides` answers for classes with project subclasses, per class: a member
    /// name, whether an unknown live set counts every subclass, and the methods. A call of a
    /// base's method resolves to the overrides of its whole subclass tree (thousands of classes
    /// under a model library's base), asked again at every call site. Cleared when the live set
    /// changes.
    member_memo: std::sync::Mutex<HashMap<ClassRef, Vec<MemberAnswer>>>,
    /// Host-index facts (`semantic/host_index.rs`), solved on first use.
    host_index: std::sync::OnceLock<super::host_index::HostIndexFacts<'a>>,
    /// Parameters some counted call passes a tensor for (`semantic/tensor_params.rs`), solved
    /// on first use (once the region is final).
    pub(super) tensor_params: std::sync::OnceLock<super::tensor_params::TensorParamFacts<'a>>,
    /// The Dynamo config flags some file sets to `True` for the whole process (assignments,
    /// `setattr`), collected on first ask (`link/queries.rs::dynamo_config_set`).
    process_config_flags: std::sync::OnceLock<HashSet<&'a str>>,
    /// Constructor options nothing in the tree sets (`semantic/options.rs`).
    pub(crate) options: super::options::OptionTable,
    /// The region traced when those options keep their defaults (a subset of `in_region`;
    /// equal to it when there are none).
    pub(crate) default_region: HashSet<FuncRef>,
    /// Parameters an option passed as an argument decides at the defaults
    /// (`link/option_args.rs`).
    pub(crate) option_params: option_args::OptionParams,
    /// The Python environment the project runs in, when named: bases of other installed
    /// distributions are read from its sources (`semantic/environment.rs`).
    pub(crate) environment: Option<&'a super::environment::Environment>,
}

impl<'a> Project<'a> {
    pub fn link(
        files: &'a [FileSummary],
        region_source: &'a RegionSource,
        root_spec: &RootSpec,
        type_flow: bool,
        environment: Option<&'a super::environment::Environment>,
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
            autograd_functions: HashSet::default(),
            subclasses: HashMap::default(),
            class_bases: Vec::new(),
            in_region: HashSet::default(),
            fullgraph_only: HashSet::default(),
            cond_branches: HashMap::default(),
            disabled_names: files
                .iter()
                .flat_map(|f| f.functions.iter())
                .filter(|f| f.disabled || f.disabled_frame_only)
                .map(|f| f.name.as_str())
                .collect(),
            property_names: files
                .iter()
                .flat_map(|f| f.functions.iter())
                .filter(|f| f.is_property)
                .map(|f| f.name.as_str())
                .collect(),
            roots: Vec::new(),
            roots_left_out: Vec::new(),
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
            member_memo: Default::default(),
            flow: Default::default(),
            reached_by: HashMap::default(),
            host_index: std::sync::OnceLock::new(),
            tensor_params: std::sync::OnceLock::new(),
            process_config_flags: std::sync::OnceLock::new(),
            options: Default::default(),
            default_region: HashSet::default(),
            option_params: HashMap::default(),
            environment,
        };
        project.find_module_classes();
        // The whole-program type flow (`--type-flow`) is experimental: its round-based solve
        // costs seconds on a large tree and over-reaches without roots (see docs/architecture.md).
        if type_flow {
            project.flow = super::typeflow::solve::solve(&project);
        }
        if !root_spec.is_empty() {
            project.live_classes = Some(HashSet::default());
            project.forget_member_answers();
        }
        project.find_roots(root_spec);
        // Sized for every call site up front: growing it rehashes every `Sym` key (strings), which
        // showed in profiles of this sequential step.
        let call_sites: usize = files
            .iter()
            .flat_map(|f| f.functions.iter())
            .map(|f| f.calls.len())
            .sum();
        let mut callees =
            CalleeCache::with_capacity_and_hasher(call_sites, rustc_hash::FxBuildHasher);
        project.root_funcs = project.roots.iter().map(|r| r.func).collect();
        // Each closure records how it first reached every function; the last one is kept. (The
        // closure reads only the facts below, never the region it replaces, so the last round's
        // closure is the final one: computing it once more for `reached_by` changed nothing.)
        let mut reached_by = HashMap::default();
        // Without roots nothing below changes what names resolve to (no live-class rounds), so
        // the host-index solve — sequential, and needed as soon as one candidate carries
        // host-index dependencies — runs on a second worker while this one computes the closure.
        let solve_now = project.live_classes.is_none()
            && files
                .iter()
                .any(|f| f.candidates.iter().any(|c| c.host_index.is_some()));
        let (in_region, host_index) = rayon::join(
            || {
                project.closure(
                    project.roots.iter().map(|r| r.func),
                    &mut callees,
                    Some(&mut reached_by),
                )
            },
            || solve_now.then(|| project.solve_host_index()),
        );
        project.in_region = in_region;
        if let Some(facts) = host_index {
            let _ = project.host_index.set(facts);
        }
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
            project.forget_member_answers();
            project.flags_pinned = pinned;
            project.vararg_lens = vararg_lens;
            project.kwargs_keys = kwargs_keys;
            project.size_params = size_params;
            project.param_values = param_values;
            project.self_facts = self_facts;
            reached_by.clear();
            project.in_region = project.closure(
                project.roots.iter().map(|r| r.func),
                &mut callees,
                Some(&mut reached_by),
            );
        }
        project.reached_by = reached_by;
        // Which functions only `fullgraph=True` roots (and cond branches) reach: asked only by a
        // finding with a fullgraph wording, so the closure of the other roots (the whole region,
        // on a large tree) is computed only when such a finding lies where a fullgraph root reaches.
        if project.roots.iter().any(|root| root.fullgraph) {
            let fullgraph_reached = project.closure(
                project
                    .roots
                    .iter()
                    .filter(|root| root.fullgraph)
                    .map(|root| root.func),
                &mut callees,
                None,
            );
            let asked = fullgraph_reached.iter().any(|&(file, func)| {
                files[file as usize]
                    .candidates
                    .iter()
                    .any(|c| c.fullgraph_only.is_some() && c.func == Some(func))
            });
            if asked {
                let partial = project.closure(
                    project
                        .roots
                        .iter()
                        .filter(|root| !root.fullgraph)
                        .map(|root| root.func),
                    &mut callees,
                    None,
                );
                project.fullgraph_only = fullgraph_reached
                    .into_iter()
                    .filter(|func| !partial.contains(func))
                    .collect();
            }
        }
        // Options nothing in the tree sets, read at their defaults: the region traced then.
        // The tensor-parameter facts depend on the final region but not on the options: where a
        // finding will ask for them, they are solved on a second worker meanwhile (asked first
        // while deciding findings, the sequential solve held every worker up).
        let asks_tensor_params = files.iter().any(|f| {
            f.candidates
                .iter()
                .any(|c| c.tensor_params.is_some() || c.tensor_returns.is_some())
        });
        let (options, tensor_params) = rayon::join(
            || project.build_option_table(),
            || asks_tensor_params.then(|| project.solve_tensor_params()),
        );
        project.options = options;
        if let Some(facts) = tensor_params {
            let _ = project.tensor_params.set(facts);
        }
        if !project.options.is_empty() {
            project.option_params = project.option_params(&mut callees);
            project.default_region = project.closure_at(
                project.roots.iter().map(|r| r.func),
                &mut callees,
                None,
                true,
            );
        }
        project
    }

    // ----- name resolution ------------------------------------------------------------------
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
