//! The per-file semantic model: what names are bound to (imports, aliases, definitions, locals),
//! which guard conditions and exception paths lead to the code being visited, and what one file
//! contributes to the project (definitions, call sites, guards). It never names a rule: the
//! checker (`src/scan/checker/`) drives it through one walk and hands rules a read-only view.

use super::Sym;
use super::cond::{Atom, Cond, LenCompare, atom_for_qualified};
use super::context::ConstValue;
use super::data::TORCH;
use super::summary::{
    Branch, CallArgs, CallEdge, CallSite, ClassInfo, CompileForm, CompileTarget, FileSummary,
    FuncIdx, FunctionInfo, Guard, GuardIdx, IndexArg, PathStep, ProjectCall, TensorArg,
};
use super::tensor::TensorKind;
use facts::Follow;
use flow::LocalFacts;
pub(crate) use flow::path_ends;
pub use markers::Marked;
pub use slots::Slot;
pub use tensor_args::Hypothesis;

mod cached_attrs;
mod call_site_kinds;
pub use call_site_kinds::ArgKinds;
pub use context_managers::OutsideBuilt;
mod calls;
mod class_factories;
mod context_atoms;
mod context_managers;
mod dispatch;
mod dunder;
mod dynamo_config;
pub(crate) use dunder::comparison_dunders;
pub(crate) use torch_versions::torch_at_least_holds;
mod declared_globals;
mod effects;
mod eval;
mod facts;
mod flow;
mod functions;
mod gates;
mod guards;
mod markers;
mod masks;
mod memo;
mod options;
mod param_bindings;
mod settings;
mod typeflow;
mod value_join;
use typeflow::dotted_text;
mod host_index;
mod loop_targets;
mod names;
mod property_reads;
mod references;
mod slots;
mod statements;
mod tensor_args;
mod tensor_attrs;
mod tensor_narrowing;
mod tensor_returns;
mod torch_versions;
mod versions;
mod warnings;
use crate::config::TorchVersion;
use crate::diagnostics::Edit;
use crate::source::{LineIndex, Location};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
// The per-function frames are looked up on every name an expression mentions: FxHash, not SipHash
// (keys are source identifiers, nothing adversarial to guard against; none is iterated for output).
type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// Bound for the small recursive helpers (tensor-ness, guard formulas, searches in one expression).
pub(crate) const MAX_EXPR_DEPTH: u32 = 48;

/// Everything a file's analysis needs to know from outside the file.
pub struct FileContext<'a> {
    pub module: String,
    pub is_package_init: bool,
    /// Top-level module names of the project, so imports of project code become call-graph edges.
    pub project_roots: &'a HashSet<String>,
    pub torch_floor: Option<TorchVersion>,
    /// Where the floor came from, for messages ("pyproject.toml: torch>=2.2").
    pub torch_floor_origin: &'a str,
    /// Compile roots are configured: record what only roots use (flag parameters, call
    /// arguments); without roots that work and memory are skipped.
    pub roots_configured: bool,
    /// `--type-flow`: record the values assignments, calls and returns carry (`model/typeflow.rs`).
    pub type_flow: bool,
}

#[derive(Clone, Debug)]
enum Binding {
    Import(String),
    Def(String),
    Class(String),
    Predicate(Cond),
    /// Bound to something we don't model; shadows outer bindings.
    Other,
}

struct Frame<'a> {
    /// Local qualified name of the class or function.
    qual: String,
    kind: FrameKind,
    bindings: FxMap<String, Binding>,
    locals: FxMap<String, TensorKind>,
    /// What the locals hold where a join must agree (host-built, on the host, numpy, shape
    /// lists): `model/flow.rs`.
    facts: LocalFacts<'a>,
    /// The expression last assigned to each simple local (for rules that look through a name).
    values: FxMap<String, &'a Expr>,
    /// The values a local may hold after a join of paths that assign it differently
    /// (`model/value_join.rs`).
    value_joins: value_join::ValueJoins<'a>,
    /// Parameters annotated with a project class (`config: MyConfig`, `head: Head | None`).
    param_classes: FxMap<String, Sym>,
    /// The first positional parameter after `self` (a function's input).
    first_input: Option<String>,
    /// Positional parameters (after `self`) by name and position; keyword-only ones with `None`.
    /// Filled only with roots (for call-argument facts).
    param_positions: Vec<(String, Option<u32>)>,
    /// Every parameter's name (host-index facts: an index that is a parameter depends on the
    /// callers).
    param_names: Vec<String>,
    /// Parameters whose default is a function (`model/references.rs`).
    param_callables: FxMap<String, Vec<Sym>>,
    /// Parameters whose default builds an instance (`loss=Loss()`; `model/references.rs`).
    param_instances: FxMap<String, Sym>,
    /// The source range of the function's body (empty for a class frame).
    body_range: TextRange,
    /// The names the function's body passes first to `isinstance(...)`, read from its text on
    /// first ask (`model/tensor_args.rs`).
    isinstance_names: std::cell::OnceCell<Vec<String>>,
    /// Parameters an enclosing `isinstance(p, torch.Tensor)` branch tests: a tensor there where a
    /// call passes one (`model/tensor_narrowing.rs`).
    tensor_narrowed_params: Vec<&'a str>,
    /// Loop names bound to the elements of a parameter the body has not rebound (`for h, w in
    /// sizes:`): tensors where a call passes a tensor for the parameter (`model/loop_targets.rs`).
    param_elements: FxMap<String, String>,
    /// Locals last bound to what a project call returns, or to one element of it (`h, mask =
    /// helper(x)`): tensors where the callee returns one there (`model/tensor_returns.rs`).
    returned: FxMap<String, crate::semantic::summary::ReturnDep>,
    /// Parameters a branch rebinds while another reaching path leaves them as the caller passed
    /// them (`if isinstance(e, Sparse): t = e.values()`): still the caller's value on that path,
    /// so the parameter hypothesis still asks about them (`model/value_join.rs`).
    params_untouched_on_a_path: Vec<String>,
    /// Parameters rebound by a target whose value `values` does not record: an unpacking
    /// (`x, kinds = x`), a loop target, a `with ... as` or `:=` target.
    params_rebound_unrecorded: Vec<String>,
}

impl Frame<'_> {
    /// No binding the walk has seen so far rebinds `name`: if it is a parameter, it still holds
    /// what the caller passed.
    fn holds_callers_value(&self, name: &str) -> bool {
        !self.values.contains_key(name) && !self.params_rebound_unrecorded.iter().any(|p| p == name)
    }

    /// `name` is a parameter of this function that its body has not rebound (so far): it holds
    /// what the caller passed.
    fn is_unrebound_param(&self, name: &str) -> bool {
        self.param_names.iter().any(|p| p == name) && self.holds_callers_value(name)
    }
}

enum FrameKind {
    Class,
    Function {
        idx: FuncIdx,
        /// Name of the first parameter of a method (`self`).
        self_name: Option<String>,
        class: Option<String>,
    },
}

pub struct SemanticModel<'a> {
    source: &'a str,
    /// Dynamo markers applied in the file (`model/markers.rs`).
    markers: markers::Markers,
    /// Names each function declares `global` (`model/declared_globals.rs`).
    declared_globals: FxMap<FuncIdx, Vec<String>>,
    /// Whether the text names a marker of torch functions (computed on first ask).
    marks_torch_functions: std::cell::OnceCell<bool>,
    lines: &'a LineIndex,
    ctx: &'a FileContext<'a>,
    package: String,
    module_bindings: FxMap<String, Binding>,
    /// Version flags asserted at the top of the enclosing functions, with where each assertion
    /// ends (`model/versions.rs`).
    version_asserts: Vec<(u32, Sym)>,
    frames: Vec<Frame<'a>>,
    path: Vec<PathStep>,
    /// > 0 inside `try:` bodies whose handlers catch ImportError/AttributeError (feature probes).
    feature_probe_depth: u32,
    /// > 0 inside `try:` bodies whose handlers catch ImportError (an availability probe).
    import_probe_depth: u32,
    last_if_guard: Option<GuardIdx>,
    /// `for`/`while` loops around the code, in the current function.
    loop_depth: u32,
    /// `try:` bodies around the code, in the current function (Dynamo cannot resume inside one).
    try_body_depth: u32,
    /// Bodies of `with` over a project context manager around the code, in the current function
    /// (Dynamo cannot resume inside one: `model/context_managers.rs`).
    unresumable_with_depth: u32,
    /// Bodies of `with` over a standard-library context manager (not `nullcontext`) around the
    /// code, in the current function (Dynamo cannot resume inside one either).
    stdlib_with_depth: u32,
    /// Module-level classes defining `__enter__`, `@contextmanager` functions and methods
    /// (`Class.method`) of this file.
    unresumable_context_managers: HashSet<String>,
    /// Attributes probed by an enclosing `hasattr(...) and ...` or conditional expression.
    probes: Vec<String>,
    /// Names narrowed to a class by the `if isinstance(name, C)` / `issubclass(name, C)` branches
    /// around the code being visited (`model/class_factories.rs`).
    narrowed: Vec<(String, class_factories::Narrowed)>,
    /// `(class, attr)` pairs some method initializes to a Python int (`self.calls = 0`).
    int_attributes: HashMap<String, HashSet<String>>,
    /// Where the tensors kept in `self.<attr>[...]` slots live (`model/slots.rs`).
    slot_places: slots::SlotPlaces,
    /// Helpers that return classes, and the attributes built from them (`model/class_factories.rs`).
    class_factories: class_factories::ClassFactories,
    /// Module-level `NAME = {key: callable, ...}` dispatch dicts.
    module_dicts: HashMap<String, &'a ast::ExprDict>,
    /// Module-level names bound to a torch version test (`model/torch_versions.rs`); `Unknown`
    /// when bound to different ones.
    torch_version_flags: HashMap<String, Cond>,
    /// Module-level names bound to a reading of the torch version; `None` when bound to
    /// different things.
    torch_version_readings: HashMap<String, Option<torch_versions::VersionReading>>,
    /// `self.attr = {key: Class(...), ...}` dispatch dicts: the callees of `self.attr[k](...)`.
    self_dicts: HashMap<(String, String), Vec<Sym>>,
    /// Guard index of each recorded `if` statement, by its start offset (for early returns nested
    /// in `with` / `try` bodies).
    if_guards: HashMap<TextSize, GuardIdx>,
    /// Guards of `if` statements whose body only fails (`if p is None: raise ValueError(...)`):
    /// what follows such a validation runs on every call that does not raise
    /// (`model/options.rs` reads a constructor's stores after them as made on every
    /// construction).
    validation_guards: Vec<GuardIdx>,
    /// Call start offset → its index among its scope's type-flow calls (`model/typeflow.rs`).
    flow_call_index: FxMap<u32, u32>,
    /// Targets of the `for` loops and comprehensions around the code, with where their values
    /// may come from the host (`model/host_index.rs`); a cell so that reading a comprehension
    /// from outside can bind its targets for the time of the read.
    index_loops: std::cell::RefCell<Vec<(String, Vec<super::summary::IndexDep>)>>,
    /// Comprehensions around the code (their element runs once per iteration).
    iteration_depth: std::cell::Cell<u32>,
    /// Nesting of the host-index evaluation in progress (bounds its mutual recursion).
    index_nesting: std::cell::Cell<u32>,
    /// Steps left to the host-index question in progress.
    index_budget: std::cell::Cell<u32>,
    /// `(class, attr)` set from a constructor parameter (`self.matcher = matcher`).
    injected_attrs: HashSet<(String, String)>,
    /// The functions that build what `self.<attr>` holds (`self.attr = Cls(...)`), by (class,
    /// attr): an instance built in the frame that enters it is not one from outside.
    self_attr_builders: FxMap<(String, String), Vec<FuncIdx>>,
    /// `(class, attr)` → what the assignments seen so far put in `self.attr` (`model/tensor_attrs.rs`).
    tensor_attrs: FxMap<(String, String), tensor_attrs::AttrHolds>,
    /// `(class, attr)` → every assignment seen so far stores a `functools` cache wrapper
    /// (`model/cached_attrs.rs`).
    cached_attrs: FxMap<(String, String), bool>,
    /// The callee of the call being visited and the value of the attribute being visited: a
    /// name there is not a function used as a value (`model/references.rs`).
    callee_range: Option<TextRange>,
    attribute_value_range: Option<TextRange>,
    /// Hash of (function, target, path) → the reference edges with it (`model/references.rs`).
    reference_index: FxMap<u64, Vec<u32>>,
    /// Hash of (function, `self.<dunder>` target, path) → the edges with it, and per function how
    /// many of its edges that index has read (`model/dunder.rs`).
    self_dunder_index: FxMap<u64, Vec<u32>>,
    self_dunder_indexed: FxMap<FuncIdx, u32>,
    /// What compiled functions' call sites in the file pass (`model/call_site_kinds.rs`).
    call_site_kinds: call_site_kinds::CallSiteKinds<'a>,
    /// What compiled call sites pass to parameters, and the uses they bind
    /// (`model/param_bindings.rs`).
    param_bindings: param_bindings::ParamBindings<'a>,
    /// While asking whether an expression would be a tensor if the function's parameters (and,
    /// when asked, what its project calls returned) were (`model/tensor_args.rs`): what the
    /// answer used.
    param_hypothesis: std::cell::RefCell<Option<tensor_args::Hypothesis>>,
    summary: FileSummary,
}

/// Where a saved piece of model state (guard path, probes) is restored to.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    path: usize,
    probes: usize,
}

/// What entering a function saved, for [`SemanticModel::leave_function`].
pub struct FunctionScope {
    idx: FuncIdx,
    version_asserts: usize,
    path: Vec<PathStep>,
    feature_probe_depth: u32,
    import_probe_depth: u32,
    loop_depth: u32,
    try_body_depth: u32,
    unresumable_with_depth: u32,
    stdlib_with_depth: u32,
    /// Host-index bindings (`index_loops`) before the function: its own go when it ends.
    index_bindings: usize,
}

/// What the handlers of a `try` catch, for [`SemanticModel::enter_try_body`].
#[derive(Clone, Copy, Debug)]
pub struct TryHandlers {
    probe_errors: bool,
    import_failure: bool,
}

impl<'a> SemanticModel<'a> {
    pub(crate) fn new(
        source: &'a str,
        lines: &'a LineIndex,
        ctx: &'a FileContext<'a>,
        summary: FileSummary,
    ) -> SemanticModel<'a> {
        let package = if ctx.is_package_init {
            ctx.module.clone()
        } else {
            ctx.module
                .rsplit_once('.')
                .map(|(p, _)| p.to_owned())
                .unwrap_or_default()
        };
        SemanticModel {
            source,
            markers: markers::Markers::default(),
            declared_globals: FxMap::default(),
            marks_torch_functions: std::cell::OnceCell::new(),
            lines,
            ctx,
            package,
            module_bindings: FxMap::default(),
            frames: Vec::new(),
            path: Vec::new(),
            feature_probe_depth: 0,
            import_probe_depth: 0,
            last_if_guard: None,
            loop_depth: 0,
            try_body_depth: 0,
            unresumable_with_depth: 0,
            stdlib_with_depth: 0,
            unresumable_context_managers: HashSet::default(),
            probes: Vec::new(),
            narrowed: Vec::new(),
            version_asserts: Vec::new(),
            int_attributes: HashMap::default(),
            slot_places: slots::SlotPlaces::default(),
            class_factories: class_factories::ClassFactories::default(),
            module_dicts: HashMap::default(),
            torch_version_flags: HashMap::default(),
            torch_version_readings: HashMap::default(),
            self_dicts: HashMap::default(),
            if_guards: HashMap::default(),
            validation_guards: Vec::new(),
            flow_call_index: FxMap::default(),
            index_loops: std::cell::RefCell::default(),
            iteration_depth: std::cell::Cell::new(0),
            index_nesting: std::cell::Cell::new(0),
            index_budget: std::cell::Cell::new(0),
            injected_attrs: HashSet::default(),
            self_attr_builders: FxMap::default(),
            tensor_attrs: FxMap::default(),
            cached_attrs: FxMap::default(),
            callee_range: None,
            attribute_value_range: None,
            reference_index: FxMap::default(),
            self_dunder_index: FxMap::default(),
            self_dunder_indexed: FxMap::default(),
            call_site_kinds: call_site_kinds::CallSiteKinds::default(),
            param_bindings: param_bindings::ParamBindings::default(),
            param_hypothesis: std::cell::RefCell::new(None),
            summary,
        }
    }

    /// The oldest torch the project supports, if known.
    pub fn torch_floor(&self) -> Option<TorchVersion> {
        self.ctx.torch_floor
    }

    /// Where the torch floor came from, for messages.
    pub fn torch_floor_origin(&self) -> &str {
        self.ctx.torch_floor_origin
    }

    // ----- bindings -------------------------------------------------------------------------

    pub(crate) fn summary_mut(&mut self) -> &mut FileSummary {
        &mut self.summary
    }

    /// The file's summary, with module-level imports and predicate aliases filled in.
    pub(crate) fn finish(mut self) -> FileSummary {
        self.bind_param_uses();
        let dispatch: HashMap<String, Vec<Sym>> = self
            .module_dicts
            .iter()
            .map(|(name, dict)| (name.clone(), self.dispatch_callees(dict)))
            .filter(|(_, callees)| !callees.is_empty())
            .collect();
        let factories: HashMap<String, Box<[Sym]>> = self
            .class_factory_returns()
            .map(|(qual, classes)| (qual.clone(), classes.clone().into()))
            .collect();
        let mut summary = self.summary;
        summary.torch_version_flags = self
            .torch_version_flags
            .into_iter()
            .filter(|(_, cond)| *cond != Cond::Unknown)
            .collect();
        summary.module_dispatch = dispatch;
        summary.class_factory_returns = factories;
        for (name, binding) in self.module_bindings {
            match binding {
                Binding::Import(target) => {
                    summary.imports.insert(name, target);
                }
                Binding::Predicate(cond) => {
                    summary.predicate_aliases.insert(name, cond);
                }
                _ => {}
            }
        }
        summary
    }
}

/// What an argument passes, as far as caller context needs: a literal constant, one
/// dimension of a shape (`x.shape[1]`, `x.size(1)`: an int, never `None`), or a new collection
/// (`(n, n)`, `[a]`, `{}`: never `None`).
fn argument_value(value: &Expr) -> Option<ConstValue> {
    ConstValue::of(value)
        .or_else(|| is_dimension(value).then_some(ConstValue::Dim))
        .or_else(|| collection_display(value))
}

/// A tuple, list, set or dict display or comprehension: a collection built by the call's own
/// argument, with whether it has an element when the syntax says.
fn collection_display(value: &Expr) -> Option<ConstValue> {
    let nonempty = |elements: &[Expr]| {
        if elements.iter().any(|e| matches!(e, Expr::Starred(_))) {
            // `(*xs,)` is empty when `xs` is, `(*xs, 1)` never.
            elements
                .iter()
                .any(|e| !matches!(e, Expr::Starred(_)))
                .then_some(true)
        } else {
            Some(!elements.is_empty())
        }
    };
    let nonempty = match value {
        Expr::Tuple(tuple) => nonempty(&tuple.elts),
        Expr::List(list) => nonempty(&list.elts),
        Expr::Set(set) => nonempty(&set.elts),
        Expr::Dict(dict) => {
            if dict.items.iter().any(|item| item.key.is_some()) {
                Some(true)
            } else if dict.items.is_empty() {
                Some(false)
            } else {
                None
            }
        }
        Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) => None,
        _ => return None,
    };
    Some(ConstValue::Collection { nonempty })
}

/// `x.shape[i]` / `x.size(i)` with a literal index: one dimension of a torch.Size.
fn is_dimension(value: &Expr) -> bool {
    let literal_index = |index: &Expr| matches!(ConstValue::of(index), Some(ConstValue::Int(_)));
    match value {
        Expr::Subscript(subscript) => {
            matches!(&*subscript.value, Expr::Attribute(a) if a.attr.id.as_str() == "shape")
                && literal_index(&subscript.slice)
        }
        Expr::Call(call) => {
            matches!(&*call.func, Expr::Attribute(a) if a.attr.id.as_str() == "size")
                && call.arguments.keywords.is_empty()
                && matches!(&*call.arguments.args, [index] if literal_index(index))
        }
        _ => false,
    }
}

/// The shape of a call's arguments (for default-flag pinning).
fn call_args(arguments: &ast::Arguments) -> CallArgs {
    let spread_name = |value: &Expr| match value {
        Expr::Name(name) => name.id.to_string(),
        _ => String::new(),
    };
    let bare_name = |value: &Expr| match value {
        Expr::Name(name) => Some(name.id.to_string()),
        _ => None,
    };
    // `x.shape` / `x.size()`: a torch.Size (a tuple) whatever `x` is.
    let is_size = |value: &Expr| match value {
        Expr::Attribute(attribute) => attribute.attr.id.as_str() == "shape",
        Expr::Call(call) => {
            call.arguments.is_empty()
                && matches!(&*call.func, Expr::Attribute(a) if a.attr.id.as_str() == "size")
        }
        _ => false,
    };
    let mut args = CallArgs::default();
    let mut positional = Vec::new();
    let mut positional_consts = Vec::new();
    let mut sizes = Vec::new();
    for argument in arguments.args.iter() {
        match argument {
            Expr::Starred(starred) => args.star = Some(spread_name(&starred.value)),
            other => {
                if is_size(other) {
                    sizes.push(positional.len() as u32);
                }
                positional.push(bare_name(other));
                positional_consts.push(argument_value(other));
            }
        }
    }
    let mut keywords = Vec::new();
    let mut keyword_consts = Vec::new();
    let mut size_keywords = Vec::new();
    for keyword in arguments.keywords.iter() {
        match &keyword.arg {
            Some(name) => {
                if is_size(&keyword.value) {
                    size_keywords.push(name.id.to_string());
                }
                keywords.push((name.id.to_string(), bare_name(&keyword.value)));
                keyword_consts.push(argument_value(&keyword.value));
            }
            None => args.double_star = Some(spread_name(&keyword.value)),
        }
    }
    args.positional_consts = positional_consts.into();
    args.keyword_consts = keyword_consts.into();
    args.size_positions = sizes.into();
    args.size_keywords = size_keywords.into();
    args.positional = positional.into();
    args.keywords = keywords.into();
    args
}

fn import_bindings(import: &ast::StmtImport) -> Vec<(String, String)> {
    import
        .names
        .iter()
        .map(|alias| match &alias.asname {
            // `import torch.nn as nn` binds nn → torch.nn.
            Some(asname) => (asname.id.to_string(), alias.name.id.to_string()),
            // `import torch.nn` binds torch → torch.
            None => {
                let root = alias
                    .name
                    .id
                    .split('.')
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                (root.clone(), root)
            }
        })
        .collect()
}

fn collect_returns<'b>(body: &'b [Stmt], out: &mut Vec<Option<&'b Expr>>, depth: u32) {
    if depth > 32 {
        return;
    }
    for stmt in body {
        match stmt {
            Stmt::Return(ret) => out.push(ret.value.as_deref()),
            Stmt::If(stmt_if) => {
                collect_returns(&stmt_if.body, out, depth + 1);
                for clause in &stmt_if.elif_else_clauses {
                    collect_returns(&clause.body, out, depth + 1);
                }
            }
            Stmt::Try(stmt_try) => {
                collect_returns(&stmt_try.body, out, depth + 1);
                for handler in &stmt_try.handlers {
                    let ast::ExceptHandler::ExceptHandler(handler) = handler;
                    collect_returns(&handler.body, out, depth + 1);
                }
                collect_returns(&stmt_try.orelse, out, depth + 1);
            }
            Stmt::With(with) => collect_returns(&with.body, out, depth + 1),
            _ => {}
        }
    }
}

/// Does every path through `body` end in `return` (no exception)? `if`/`else` both returning,
/// `with` bodies that return.
pub(crate) fn always_returns(body: &[Stmt]) -> bool {
    always_returns_depth(body, 0)
}

fn always_returns_depth(body: &[Stmt], depth: u32) -> bool {
    if depth > 16 {
        return false;
    }
    body.iter().any(|stmt| match stmt {
        Stmt::Return(_) => true,
        Stmt::If(stmt_if) => {
            always_returns_depth(&stmt_if.body, depth + 1)
                && stmt_if
                    .elif_else_clauses
                    .iter()
                    .any(|clause| clause.test.is_none())
                && stmt_if
                    .elif_else_clauses
                    .iter()
                    .all(|clause| always_returns_depth(&clause.body, depth + 1))
        }
        Stmt::With(with) => always_returns_depth(&with.body, depth + 1),
        _ => false,
    })
}

fn block_terminates(body: &[Stmt]) -> bool {
    matches!(
        body.last(),
        Some(Stmt::Return(_) | Stmt::Raise(_) | Stmt::Continue(_) | Stmt::Break(_))
    )
}

/// Does the handler catch any of `names` (a bare `except:` catches everything)?
fn handler_catches(handler: &ast::ExceptHandler, names: &[&str]) -> bool {
    let ast::ExceptHandler::ExceptHandler(handler) = handler;
    let Some(kind) = &handler.type_ else {
        return true;
    };
    let caught: Vec<&Expr> = match &**kind {
        Expr::Tuple(tuple) => tuple.elts.iter().collect(),
        other => vec![other],
    };
    caught
        .iter()
        .any(|name| matches!(name, Expr::Name(n) if names.contains(&n.id.as_str())))
}

/// A failed import lands here: an availability probe when the `try` wraps an import (BR002).
fn catches_import_failure(handler: &ast::ExceptHandler) -> bool {
    handler_catches(
        handler,
        &[
            "ImportError",
            "ModuleNotFoundError",
            "Exception",
            "BaseException",
        ],
    )
}

/// A failed import or a missing attribute lands here: a feature probe (VR001 stays quiet).
fn handler_catches_probe_errors(handler: &ast::ExceptHandler) -> bool {
    handler_catches(
        handler,
        &[
            "ImportError",
            "ModuleNotFoundError",
            "AttributeError",
            "Exception",
            "BaseException",
        ],
    )
}

/// `Tensor, List[int], Dict[str, Tensor]` → the three top-level items (commas inside brackets kept).
fn split_top_level(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(text[start..].trim());
    items
}

/// Put `name` in `set` when the fact holds, take it out when it doesn't (skipping the hash of an empty
/// set: most frames never hold any).
fn set_membership<'a, S: std::hash::BuildHasher>(
    set: &mut std::collections::HashSet<&'a str, S>,
    name: &'a str,
    holds: bool,
) {
    if holds {
        set.insert(name);
    } else if !set.is_empty() {
        set.remove(name);
    }
}
