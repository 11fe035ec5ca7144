//! What one file contributes to the project model: definitions, call sites, guards, and the rule
//! findings whose fate depends on facts only the whole project knows (is this function traced?).

use super::Sym;
use super::cond::Cond;
use super::context::ConstValue;
use crate::diagnostics::Fix;
use crate::source::Location;
use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::path::PathBuf;
use thin_vec::ThinVec;

pub type FileId = u32;
pub type FuncIdx = u32;
pub type GuardIdx = u32;

/// The rarely filled lists are `ThinVec`s (one pointer, no allocation while empty) rather than
/// `Vec`s (three words): a large tree holds ~45k of these for the whole scan, and most lists
/// are empty (496 → 288 bytes per function).
#[derive(Debug, Default)]
pub struct FunctionInfo {
    pub name: String,
    /// Local qualified name of the class this is a method of (directly), if any.
    pub class: Option<String>,
    /// Row of the `def`.
    pub line: u32,
    /// Last row of the body.
    pub end_line: u32,
    /// `@torch.compile` / `@torch._dynamo.optimize(backend)` on the `def`: a compile root, and
    /// which entry point made it one (`--show-roots` names it).
    pub compile_decorator: Option<CompileForm>,
    /// That decorator passes `fullgraph=True` (`nopython=True`).
    pub compile_fullgraph: bool,
    /// `@functools.lru_cache` / `@functools.cache`: in eager mode its body runs once per distinct
    /// arguments, not once per call.
    pub memoized: bool,
    /// `@torch.compiler.disable` / `@torch._dynamo.disable`: Dynamo never traces it.
    pub disabled: bool,
    /// `@torch._dynamo.disable(recursive=False)`: Dynamo skips this frame but still traces the
    /// functions it calls.
    pub disabled_frame_only: bool,
    /// The Dynamo marker that made it `disabled` when that was not a `disable` decorator on the
    /// `def` itself (`@torch._dynamo.decorators.skip`, `f = disable(f)`, `forward` of a class
    /// marked as a whole): `model/markers.rs`.
    pub marked_by: Option<crate::semantic::model::Marked>,
    pub calls: Vec<CallEdge>,
    /// Writes to state that outlives the call (attribute stores and container mutations of
    /// objects the function did not create).
    pub outside_writes: ThinVec<OutsideWrite>,
    /// `@property` (or `cached_property`): `self.name(...)` calls what the getter returns.
    pub is_property: bool,
    /// `@functools.cached_property`: a read runs the getter through functools' `__get__`, which
    /// Dynamo 2.11 cannot trace (it skips the reading frame); the getter runs as its own frame,
    /// traced only when it holds a tensor-bearing `self` (an `nn.Module`).
    pub cached_getter: bool,
    /// Project classes an instance of which the function returns (`return Cls(...)`, or a
    /// `-> Cls` annotation): `obj = make(...)` then `obj.prop` reads `Cls.prop`.
    pub returned_classes: ThinVec<Sym>,
    /// Project callables a `return` hands back (`return LOSS_MAPPING[kind]`, `return helper`).
    pub returned_callables: ThinVec<Sym>,
    /// The decorators of the `def` (`@d` and `@d(...)`: the called name), resolved in the scope
    /// around it: a project decorator's wrapper runs whenever the decorated name is called.
    pub decorators: ThinVec<Sym>,
    /// The decorators written without a call (`@d`), resolved: a project class there makes the
    /// decorated name an instance of it, so calling the name runs the class's `__call__`.
    pub bare_decorators: ThinVec<Sym>,
    /// When every `return` yields a guard formula, the function is a predicate with this formula.
    pub predicate: Option<Cond>,
    /// Parameters with a literal False / None / 0 default (`profile=False`): name and position
    /// among the positional parameters after `self` (`None` for keyword-only).
    pub flag_params: ThinVec<(String, Option<u32>)>,
    /// The flag parameters whose default is `None` (`cache_data=None`): at their default,
    /// `p is not None` is False and `p is None` True.
    pub none_flags: ThinVec<String>,
    /// Parameters tested with `isinstance(p, tuple | torch.Size | torch.Tensor)`, with their
    /// position (`None`: keyword-only).
    pub size_checked_params: ThinVec<(String, Option<u32>)>,
    /// Parameters tested against a constant (`Atom::ParamTest`), with their position.
    pub const_params: ThinVec<(String, Option<u32>)>,
    /// Parameters with a literal constant default (with roots only).
    pub param_defaults: ThinVec<(String, ConstValue)>,
    /// Tests `self.<attr>` before changing it (`Atom::SelfAttr`).
    pub tests_self_attrs: bool,
    /// The `self.<attr>` this method assigns, as far as the walk has got (with roots only).
    pub self_writes: ThinVec<String>,
    /// A (module-level) class decorator that replaces the class's `forward` with a dispatcher
    /// that never calls the original directly (`model/dispatch.rs`).
    pub replaces_forward: bool,
    /// Names of `*args` / `**kwargs`, to tell a call that forwards them.
    pub vararg: Option<String>,
    /// Named positional parameters (after `self`) ahead of `*args`: a call's extra positional
    /// arguments go to `*args`.
    pub fixed_positional: u32,
    pub kwarg: Option<String>,
    /// Parameters by name with their position among the positional ones after `self` (`None`:
    /// keyword-only), for host-index facts passed by callers.
    pub index_params: ThinVec<(String, Option<u32>)>,
    /// Parameters annotated as tensors (`x: torch.Tensor`), or as optional ones with no default
    /// but `None` (`mask: Optional[Tensor] = None`): a root's inputs come from its user, and these
    /// are the ones the user is told to pass a tensor (`semantic/tensor_params.rs`).
    pub tensor_annotated_params: ThinVec<String>,
    /// Parameters annotated with a name that may be a project type alias (`edge_type: OptTensor`,
    /// no default but `None`): tensor inputs of a root where the alias names `Tensor` or
    /// `Optional[Tensor]` (`FileSummary::tensor_aliases`, resolved when linking).
    pub alias_annotated_params: ThinVec<(String, crate::semantic::Sym)>,
    /// Where the values this function returns may come from the host (`model/host_index.rs`).
    pub host_index_returns: ThinVec<IndexDep>,
    /// The tensors this function's `return`s hand back (`model/tensor_returns.rs`).
    pub tensor_returns: ThinVec<ReturnedTensor>,
}

/// Where a value used as an index may come from the host (`model/host_index.rs`); the symbolic
/// ones are solved when linking (`semantic/host_index.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IndexDep {
    /// Built or copied on the host here (`.cpu()`, numpy, a list display, no `device=`).
    Host,
    /// The function's parameter of this name: host when a caller passes a host value.
    Param(String),
    /// What a call of this project function returns.
    Returns(crate::semantic::Sym),
    /// What `self.<attr>(...)` returns where the constructor stored a parameter in `attr`
    /// (`self.matcher = matcher`, class unseen): host when some project module's `forward`
    /// returns host values.
    Injected(crate::semantic::Sym),
}

/// A call argument that may hold a host value: its position (`None`: by keyword) or keyword.
#[derive(Clone, Debug)]
pub struct IndexArg {
    pub position: Option<u32>,
    pub keyword: Option<String>,
    pub deps: Vec<IndexDep>,
}

impl FunctionInfo {
    /// `Class.method` for a method, the bare name otherwise (messages).
    pub fn qualified_name(&self) -> String {
        match &self.class {
            Some(class) => format!("{}.{}", display_qualname(class), self.name),
            None => self.name.clone(),
        }
    }
}

/// Marks a later class statement binding a name its scope already bound to a class
/// (`try: class A(opt.Base) ... except ImportError: class A ...`, `if c: class A ... else:
/// class A ...`): two statements make two class objects, so the second is recorded as its own
/// class under `A#2` (no Python identifier holds `#`), and `self` in its methods dispatches
/// within its own statement's MRO. The name itself resolves to every alternative
/// (`FileSummary::class_alternatives`).
pub const ALTERNATIVE_MARK: char = '#';

/// A local qualified name as users write it: `A#2.method` → `A.method`.
pub fn display_qualname(qual: &str) -> Cow<'_, str> {
    if !qual.contains(ALTERNATIVE_MARK) {
        return Cow::Borrowed(qual);
    }
    let mut out = String::with_capacity(qual.len());
    let mut chars = qual.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ALTERNATIVE_MARK {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// What a call passes: positional arguments and keywords (with the name of the caller's variable
/// when the value is a bare name, so a flag passed through stays at its default), and `*x` /
/// `**x` spreads.
#[derive(Debug, Default)]
pub struct CallArgs {
    pub positional: Box<[Option<String>]>,
    pub keywords: Box<[(String, Option<String>)]>,
    /// `*name` / `**name` spreads by name (`Some("")` for a spread of anything else).
    pub star: Option<String>,
    pub double_star: Option<String>,
    /// Positions and keywords whose value is `x.shape` / `x.size()` (a torch.Size).
    pub size_positions: Box<[u32]>,
    pub size_keywords: Box<[String]>,
    /// The literal constant of each positional argument and keyword (parallel to `positional`
    /// and `keywords`), for the parameter constants of `context.rs`.
    pub positional_consts: Box<[Option<ConstValue>]>,
    pub keyword_consts: Box<[Option<ConstValue>]>,
    /// Arguments that are `self.<attr>` of the calling method (`f(x, self.mode)`): at link time
    /// a constructor option read at its default passes that default (`link/option_args.rs`).
    /// Empty for most calls.
    pub self_attrs: Box<[SelfAttrArg]>,
}

/// One `self.<attr>` argument of a call: by position or by keyword.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfAttrArg {
    pub position: Option<u32>,
    pub keyword: Option<String>,
    pub attr: String,
}

/// A call from a function to project code, with the path (guards, exception-only) that leads to
/// it: a call on an eager-only branch does not make its callee compiled.
#[derive(Debug)]
pub struct CallEdge {
    pub sym: Sym,
    pub path: Box<[PathStep]>,
    /// Row of the call (`--why`, `reached_from`).
    pub row: u32,
    /// Recorded only with roots (default flags); boxed so an edge stays small without.
    pub args: Option<Box<CallArgs>>,
    /// Arguments that may be host values (host indices), for `semantic/host_index.rs`.
    pub host_index_args: Box<[IndexArg]>,
    /// Arguments that are tensors, or are when one of the caller's parameters is
    /// (`semantic/tensor_params.rs`).
    pub tensor_args: Box<[TensorArg]>,
}

/// Whether a call argument is a tensor: outright (`torch.zeros(n)`, a tensor local), or when one
/// of the caller's own parameters is (`helper(x)` with `x` the caller's unannotated parameter),
/// solved over the call edges when linking (`semantic/tensor_params.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensorSource {
    Tensor,
    /// A tensor when some call passes a tensor for one of these parameters of the caller.
    Params(Box<[String]>),
}

/// A value some `return` of a function hands back that is (or may be, through the function's
/// parameters) a tensor: the whole value (`position` `None`) or one element of a returned tuple
/// display (`return out, mask`). Solved when linking (`semantic/tensor_returns.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReturnedTensor {
    pub position: Option<u32>,
    pub source: TensorSource,
    /// The tensor is a boolean mask (`model/masks.rs`).
    pub mask: bool,
    /// The guards on the way to the `return` (and to the branch of a conditional expression
    /// it returns): a return only eager code takes does not count.
    pub path: Box<[PathStep]>,
    /// Project calls whose result the value is (`return helper(x)`, or a local bound to one):
    /// a tensor, too, where one of them returns one (with `source`'s parameters, either
    /// suffices).
    pub through: Box<[ReturnDep]>,
}

/// What a local holds when it was last bound to what a project call returns (`y = helper(x)`,
/// or one element of it: `h, mask = helper(x)` binds `mask` to position 1), with the call's
/// tensor arguments: a callee that returns what its parameter holds returns a tensor only where
/// this call passes one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReturnDep {
    pub sym: crate::semantic::Sym,
    pub position: Option<u32>,
    pub args: Box<[TensorArg]>,
}

/// A call argument that is (or may be, through the caller's parameters) a tensor: its position
/// among the positional arguments (`None`: by keyword) or keyword.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorArg {
    pub position: Option<u32>,
    pub keyword: Option<String>,
    pub source: TensorSource,
    /// The tensor is a boolean mask (`x > 0`, `~keep`; `model/masks.rs`).
    pub mask: bool,
}

/// A call of a compiled function of this file (`opt = torch.compile(fn); opt(x, flag)`,
/// `torch._dynamo.optimize(b)(fn)(x)`, a call of an `@torch.compile` function): the tensor
/// arguments it passes, by the parameter of `func` they bind. `caller`: the function the call is
/// in (`None`: module level), whose parameters a `TensorSource::Params` names.
#[derive(Clone, Debug)]
pub struct CompiledCall {
    pub func: FuncIdx,
    pub caller: Option<FuncIdx>,
    /// Parameter, source, and whether the tensor is a boolean mask.
    pub args: Box<[(String, TensorSource, bool)]>,
}

/// A project call placed where a graph break cannot resume (inside a `for`/`while` body or a
/// `try` body of its function): if the callee breaks on every call, the break happens at this
/// call in the caller's frame, and Dynamo skips that frame (`scan/merge.rs` folds its later
/// hazards like those after a same-frame skip).
#[derive(Clone, Debug)]
pub struct FrameSkipCall {
    pub func: FuncIdx,
    /// Index of the edge in the function's `calls`.
    pub call: u32,
    pub location: Location,
    /// Rows of the statement the call is in.
    pub statement_rows: (u32, u32),
    /// Rows of the innermost conditional block around the call (`Candidate::conditional_block`).
    pub conditional_block: Option<(u32, u32)>,
    /// `"loop"` or `"`try` block"`.
    pub block: &'static str,
}

/// A graph break (or frame skip) of a rule that every call of `func` hits: no guard, branch,
/// loop or failure path around it, and it depends on no fact decided later — or one with only
/// statement loops around it (a `for`/`while` body's top level): every call that enters the
/// loop hits it on the first iteration.
#[derive(Clone, Debug)]
pub struct CertainBreak {
    pub func: FuncIdx,
    pub location: Location,
}

/// A write to state outside the function's frame, and where.
#[derive(Clone, Debug)]
pub struct OutsideWrite {
    pub what: String,
    pub location: Location,
}

/// Where one edge of `FunctionInfo::calls` is called (compact: the callee and its path are
/// `calls[call]`).
#[derive(Clone, Debug)]
pub struct ProjectCall {
    pub func: FuncIdx,
    pub call: u32,
    pub location: Location,
    pub end_location: Location,
}

/// One call from a function of this file to a project symbol, where it is and on which path.
#[derive(Clone, Debug)]
pub struct CallSite {
    pub func: FuncIdx,
    pub callee: Sym,
    pub location: Location,
    pub end_location: Location,
    pub path: Vec<PathStep>,
}

#[derive(Debug, Default)]
pub struct ClassInfo {
    pub qualname: String,
    pub bases: Vec<Sym>,
    /// Class decorators (`@dec` and `@dec(...)`: the called name).
    pub decorators: Vec<Sym>,
    /// Fields declared in the class body with a literal boolean default.
    pub fields: Vec<super::gates::FieldDefault>,
    /// Declared abstract: an `abc.ABC` base or `metaclass=ABCMeta`, and an `@abstractmethod` in
    /// its body. Python refuses to instantiate it, so `self` in its methods is an instance of a
    /// subclass.
    pub is_abstract: bool,
}

/// How a compile target was named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompileForm {
    /// `torch.compile(x)`: `x` may be a function or a module instance.
    TorchCompile,
    /// `x.compile()`: `nn.Module.compile`, only a module instance counts.
    ModuleMethod,
    /// `torch._dynamo.optimize(backend)(x)`: Dynamo's own entry point, like `torch.compile(x)`.
    DynamoOptimize,
}

/// A `torch.compile(x)` / `x.compile()` target.
#[derive(Clone, Debug)]
pub struct CompileTarget {
    pub sym: Sym,
    pub form: CompileForm,
    /// `fullgraph=True` (`nopython=True` for `torch._dynamo.optimize`) is passed.
    pub fullgraph: bool,
}

/// A guard (`if` test) recorded because its formula mentions something we understand.
#[derive(Debug)]
pub struct Guard {
    pub cond: Cond,
    pub func: Option<FuncIdx>,
    pub location: Location,
    pub end_location: Location,
}

/// Which branch of a guard the code sits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Branch {
    /// The test was True (the `if` body; later operands of `and`).
    WhenTrue,
    /// The test was False (the `else`; later operands of `or`; code after `if …: return`).
    WhenFalse,
}

impl Branch {
    pub fn taken_when(truth: bool) -> Branch {
        if truth {
            Branch::WhenTrue
        } else {
            Branch::WhenFalse
        }
    }
}

/// One step of the path that leads to a piece of code inside its function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathStep {
    /// Guard index and the branch taken.
    Guard(GuardIdx, Branch),
    /// Reached only after an exception: a handler, or code after a `try` whose body always
    /// returns (Dynamo traces the path that does not raise).
    AfterException,
    /// On a failure path only: a block that ends in `raise`, an `assert` message.
    FailureOnly,
    /// On a misuse path only: a branch whose warning says the caller passed a deprecated or
    /// ignored input (the library's own callers do not take it).
    MisuseOnly,
}

/// What a Dynamo config setting covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DynamoConfigScope {
    /// An assignment or `setattr`: the process, once its module is imported.
    Process,
    /// `config.patch(...)`: the code it wraps, counted for its whole file.
    File,
}

/// Where a rule's findings count (declared once per rule in `declare_rule!`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Reported only when the enclosing function is traced by Dynamo and the code is not eager-only.
    CompiledRegion,
    /// Reported wherever it is, module level included (configuration, tests, version floor).
    Anywhere,
}

/// What a finding's code does under torch.compile (CR002 looks for these behind export guards).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hazard {
    /// No graph break or crash (a sync, a recompile, a config or test issue).
    NoBreak,
    /// Dynamo breaks the graph and runs this part eagerly.
    GraphBreak,
    /// Dynamo gives up on the whole frame and runs the function eagerly (a data-dependent jump
    /// inside a loop): later hazards of the same frame are never traced (`scan/merge.rs`).
    FrameSkip,
    /// Tracing raises: the compile fails.
    Crash,
}

/// A fact a finding depends on that is known only once the whole file was walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// Some method of `class` sets `self.<attr>` to a Python int.
    IntAttribute { class: String, attr: String },
    /// Some method of `class` sets `self.<attr>` to an instance of a module class Dynamo will not
    /// wrap (`rules/data/unwrapped_modules.toml`: `nn.LSTM`, ...).
    UnwrappedModuleAttribute { class: String, attr: String },
    /// `class` (a local qualified name) derives from a torch module Dynamo will not wrap: in the
    /// file, or through a project base another file defines (then linking decides, as for
    /// `UnwrappedModuleAttribute`).
    UnwrappedClass { class: String },
    /// Whether every assignment of the file to this `self.<attr>[...]` slot stores a host value
    /// (`model/slots.rs`) is `on_host`: a rule reports one of two wordings, this decides which.
    SlotOnHost {
        slot: crate::semantic::model::Slot,
        on_host: bool,
    },
    /// Some compiled call site of the file passes one of `kinds` to parameter `param` of
    /// `func` (`model/call_site_kinds.rs`).
    CallSiteArgument {
        func: FuncIdx,
        param: String,
        kinds: crate::semantic::model::ArgKinds,
    },
    /// Some method of `class` stores in `self.<attr>` a context manager Dynamo will not enter
    /// from outside the frame, and `func` (the function entering it) does not build it
    /// (`model/context_managers.rs`).
    OutsideContextManagerAttribute {
        class: String,
        attr: String,
        func: FuncIdx,
    },
    /// A Dynamo marker of this file marks the torch function `name`
    /// (`disallow_in_graph(torch.sub)`, anywhere in the file: `model/markers.rs`).
    MarkedTorchFunction { name: String },
}

#[derive(Debug)]
pub struct Candidate {
    pub code: &'static str,
    pub message: String,
    pub location: Location,
    pub end_location: Location,
    /// Rows of the statement the finding is in (first, last).
    pub statement_rows: (u32, u32),
    pub fix: Option<Fix>,
    pub func: Option<FuncIdx>,
    pub path: Vec<PathStep>,
    pub scope: Scope,
    pub hazard: Hazard,
    /// The finding holds only on torch below a version (an API newer than the floor): it does
    /// not hold after an assertion of that version, in its function or in every caller.
    pub holds_below: Option<VersionBound>,
    /// The finding holds only when one of these is a host value once the project is linked
    /// (a host index that reaches this code through a parameter or a call).
    pub host_index: Option<Box<[IndexDep]>>,
    /// The finding holds only when some call passes a tensor for one of these parameters of its
    /// function (`semantic/tensor_params.rs`): `if flag:` on a parameter the compiled call gives
    /// a tensor.
    pub tensor_params: Option<Box<[String]>>,
    /// With `tensor_params`: the call must pass a boolean mask, not only a tensor (`x[mask]`
    /// with `mask` the parameter).
    pub tensor_params_masks: bool,
    /// The finding holds (also) when one of these project calls returns a tensor where its
    /// local was bound (`semantic/tensor_returns.rs`): either this or `tensor_params` suffices.
    pub tensor_returns: Option<Box<[ReturnDep]>>,
    /// With `tensor_returns`: the call must return a boolean mask there.
    pub tensor_returns_masks: bool,
    /// Rows (first, last) of the innermost conditional block around the finding in its function
    /// (an `if`/`elif`/`else` body, a `match` case, a side of a conditional expression): code
    /// after that block runs without it. `None`: on every path through the function.
    pub conditional_block: Option<(u32, u32)>,
    /// Where the finding this one is about is (CR002: the traced hazard its guard lets
    /// through): when both are reported they are one finding, the cited one's (`scan/merge.rs`).
    pub cites: Option<Location>,
    /// The finding holds only when a graph break of its own function (a kept finding that
    /// breaks or skips the frame) lies after this row and before the finding: a value built
    /// on this row reaches the finding's statement as an input of the frame Dynamo resumes in.
    pub after_break_since: Option<u32>,
    /// The finding holds only when whether some file of the tree sets this Dynamo config flag to
    /// `True` is the given answer (`model/dynamo_config.rs`): a rule reports one wording for
    /// each, as for `Requirement::SlotOnHost`.
    pub dynamo_config: Option<(&'static str, bool)>,
    /// The finding holds only when whether only `fullgraph=True` compiles reach its function is
    /// the given answer (`Project::fullgraph_only`): one wording for each.
    pub fullgraph_only: Option<bool>,
}

/// A torch version a finding needs to stay below, and the version flags its own function
/// asserted before it (`model/versions.rs`).
#[derive(Debug)]
pub struct VersionBound {
    pub below: crate::config::TorchVersion,
    pub asserted: Vec<Sym>,
}

#[derive(Debug, Default)]
pub struct FileSummary {
    pub path: PathBuf,
    /// Dynamo config flags the file sets to `True`, and for what (`model/dynamo_config.rs`).
    pub dynamo_config_true: Vec<(String, DynamoConfigScope)>,
    pub module: String,
    pub functions: Vec<FunctionInfo>,
    pub classes: Vec<ClassInfo>,
    /// Local qualified name → function index, for functions and methods.
    pub function_by_name: HashMap<String, FuncIdx>,
    /// Local qualified name → class index.
    pub class_by_name: HashMap<String, u32>,
    /// A class (by index) whose name later class statements of the same scope bind again
    /// (`ALTERNATIVE_MARK`) → those classes: the name resolves to all of them.
    pub class_alternatives: HashMap<u32, Vec<u32>>,
    /// Module-level import bindings (name → dotted target), used to follow re-exports.
    pub imports: HashMap<String, String>,
    /// Module-level names bound to a tensor annotation (`OptTensor = Optional[Tensor]`,
    /// `TensorLike: TypeAlias = torch.Tensor`): type aliases other modules annotate with.
    pub tensor_aliases: Vec<String>,
    /// Every dotted name an `import` / `from ... import` of the file names, at any depth
    /// (`from .x import y` resolved: `pkg.x.y`), and every module it loads by a literal name
    /// (`importlib.import_module`, `__import__`): which modules the project itself imports.
    pub imported_names: Vec<String>,
    /// Module-level names bound to a guard formula (`_is_compiling = getattr(torch.compiler, ...)`).
    pub predicate_aliases: HashMap<String, Cond>,
    /// Module-level names bound to a test of the torch version (`TORCH_GE_2 = ...`), read by
    /// other modules through `Atom::ProjectFlag`.
    pub torch_version_flags: HashMap<String, Cond>,
    /// Targets of `torch.compile(...)` calls and compile roots found in this file.
    pub compile_roots: Vec<CompileTarget>,
    /// Calls from a function to a project function (for findings about what the callee is).
    pub call_sites: Vec<ProjectCall>,
    /// Calls of this file's compiled functions that pass tensors (`model/tensor_args.rs`).
    pub compiled_calls: Vec<CompiledCall>,
    /// Project calls where a break cannot resume (inside a loop or a `try` body): when the
    /// callee breaks on every call, Dynamo skips the caller's frame (`link/frame_skips.rs`).
    pub frame_skip_calls: Vec<FrameSkipCall>,
    /// Project calls made on every call of their function (`(function, index in its calls)`):
    /// outside loops, branches and failure paths, so a callee that always breaks makes the
    /// caller always break too.
    pub every_call_calls: Vec<(FuncIdx, u32)>,
    /// Breaks every call of their function hits (`link/frame_skips.rs`).
    pub certain_breaks: Vec<CertainBreak>,
    /// Module-level dispatch dicts (`NAME = {key: callable, ...}`) and what their values call.
    pub module_dispatch: HashMap<String, Vec<Sym>>,
    /// `torch.utils.checkpoint.checkpoint(fn, ...)` calls: `callee` is the checkpointed function.
    pub checkpoint_sites: Vec<CallSite>,
    /// `torch.cond(pred, true_fn, false_fn, operands)` in a function: one site per branch that
    /// resolves (the callee is the branch).
    pub cond_branch_sites: Vec<CallSite>,
    /// `torch.compile(...)` calls under `if` tests over configuration fields.
    pub compile_gates: Vec<super::gates::CompileGate>,
    /// `self.<attr> = <Class>(...)` in a method: class local qualname → attr → the class called
    /// (nested so that a lookup borrows its keys).
    pub self_attr_types: HashMap<String, HashMap<String, Sym>>,
    /// `self.<attr> = <function>` in a method (`model/references.rs`): class local qualname →
    /// attr → the functions it may hold.
    pub self_attr_callables: HashMap<String, HashMap<String, Vec<Sym>>>,
    /// `self.<attr> = <function>(...)` in a method (`model/references.rs`): class local qualname →
    /// attr → the project functions (or methods) whose call result it holds; calling the attribute
    /// runs the closures they return (a decorator-style wrapper, a factory's inner `def`).
    pub self_attr_factories: HashMap<String, HashMap<String, Vec<Sym>>>,
    pub guards: Vec<Guard>,
    pub candidates: Vec<Candidate>,
    /// Candidates (by index) that hold only when each of these classes derives, through the
    /// project's classes in any file, from a torch module Dynamo will not wrap: the file alone
    /// could not tell (`self.rnn = Lstm(...)` with `Lstm` imported from another project file).
    pub unwrapped_class_checks: HashMap<usize, Box<[Sym]>>,
    /// Candidates (by index) that hold only when the helper this file imported to pick a
    /// submodule's class (`cls = pick(kind)`; `self.rnn = cls(...)`) is a project function all of
    /// whose returned classes derive from a torch module Dynamo will not wrap.
    pub factory_class_checks: HashMap<usize, Sym>,
    /// Module-level functions (by local qualified name) all of whose `return`s name classes, with
    /// those classes as named in this file (read by files that import the function).
    pub class_factory_returns: HashMap<String, Box<[Sym]>>,
    /// Diagnostics decided within the file (syntax errors, unreadable, too deep).
    pub file_diagnostics: Vec<Candidate>,
    /// The project's torch floor for this file (guards read version-dependent predicates with it).
    pub torch_floor: Option<crate::config::TorchVersion>,
    /// Row → noqa directive on that row.
    pub noqa: HashMap<u32, crate::diagnostics::Noqa>,
    /// A notebook's code cells: the first row of each in the joined source (empty for a `.py`).
    pub cell_starts: Vec<u32>,
    /// Module-level names that are True exactly on torch at or above a version
    /// (`TORCH_2_8 = check_version(TORCH_VERSION, "2.8.0")`).
    pub version_flags: HashMap<String, crate::config::TorchVersion>,
    /// Project calls made after a top-level version assertion of their function.
    pub gated_calls: Vec<GatedCall>,
    /// What the type flow needs from this file (`semantic/typeflow`).
    pub flow: super::typeflow::FileFlow,
    /// Constructor options and the arguments calls pass (`model/options.rs`).
    pub options: super::options::FileOptions,
    /// Module- and class-level settings and `global` rebinds (`model/settings.rs`).
    pub settings: super::settings::FileSettings,
}

/// A call (`functions[func].calls[call]`) made after its function asserted version flags at
/// its top level (`assert TORCH_2_8, "..."`; `model/versions.rs`).
#[derive(Debug)]
pub struct GatedCall {
    pub func: FuncIdx,
    pub call: u32,
    pub flags: Vec<Sym>,
}

impl FileSummary {
    /// Drops the spare capacity of the summary's vectors once the file is walked: summaries are
    /// held from their file's walk to the end of the scan (the largest part of its peak memory),
    /// and a vector grown by `push` keeps up to half its capacity spare, at least three slots
    /// for one element (a function's `calls`: 104 bytes each). Cost: one reallocation per
    /// non-empty vector with spare room, once per file; no per-node work.
    pub fn shrink_to_fit(&mut self) {
        for function in &mut self.functions {
            function.shrink_to_fit();
        }
        for class in &mut self.classes {
            class.bases.shrink_to_fit();
            class.decorators.shrink_to_fit();
            class.fields.shrink_to_fit();
        }
        self.functions.shrink_to_fit();
        self.classes.shrink_to_fit();
        self.compile_roots.shrink_to_fit();
        self.imported_names.shrink_to_fit();
        self.call_sites.shrink_to_fit();
        self.compiled_calls.shrink_to_fit();
        self.frame_skip_calls.shrink_to_fit();
        self.every_call_calls.shrink_to_fit();
        self.certain_breaks.shrink_to_fit();
        self.checkpoint_sites.shrink_to_fit();
        self.cond_branch_sites.shrink_to_fit();
        self.compile_gates.shrink_to_fit();
        self.guards.shrink_to_fit();
        self.candidates.shrink_to_fit();
        self.file_diagnostics.shrink_to_fit();
        self.gated_calls.shrink_to_fit();
        for values in self.options.keywords.values_mut() {
            values.shrink_to_fit();
        }
        self.options.stores.shrink_to_fit();
        self.options.borrowed.shrink_to_fit();
        self.options.positional_forwards.shrink_to_fit();
    }
}

impl FunctionInfo {
    fn shrink_to_fit(&mut self) {
        self.calls.shrink_to_fit();
        self.outside_writes.shrink_to_fit();
        self.returned_classes.shrink_to_fit();
        self.returned_callables.shrink_to_fit();
        self.decorators.shrink_to_fit();
        self.flag_params.shrink_to_fit();
        self.none_flags.shrink_to_fit();
        self.size_checked_params.shrink_to_fit();
        self.const_params.shrink_to_fit();
        self.param_defaults.shrink_to_fit();
        self.self_writes.shrink_to_fit();
        self.index_params.shrink_to_fit();
        self.host_index_returns.shrink_to_fit();
        self.tensor_returns.shrink_to_fit();
    }
}
