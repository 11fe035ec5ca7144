//! The rule registry. Each rule lives in its own file: a doc comment (What it does / Why is this bad? /
//! Example / Fix / Torch versions) that is the single source of `graphbreak rule CODE` and
//! `rules/CODE.md`, its scope, and the hooks the checker (`src/scan/checker/`, the only place that
//! dispatches to rules) calls at the node kinds the rule cares about. Rules read the semantic model;
//! they never change it. Adding a rule: its file, a corpus pair, one line in [`ALL`].

use crate::scan::checker::Checker;
use crate::semantic::link::Project;
use crate::semantic::summary::{Candidate, FileId};
use ruff_python_ast::{self as ast, Expr, Stmt};

pub use crate::semantic::summary::Scope;

pub mod br001_tensor_truthiness_branch;
pub mod br002_import_probe_in_region;
pub mod br003_data_dependent_output_shape;
pub mod br004_python_side_effect_in_region;
pub mod br005_data_dependent_scalar_op;
pub mod br006_deliberate_graph_break;
pub mod br007_data_ptr_in_region;
pub mod br008_side_effect_in_checkpoint;
pub mod br009_parameter_created_in_region;
pub mod br010_skipped_function_call;
pub mod br011_unwrapped_module_call;
pub mod br012_zero_dim_tensor_index;
pub mod br013_cached_wrapper_call;
pub mod br014_argument_probe_call;
pub mod br020_class_statement_in_region;
pub mod br021_check_message_not_extractable;
pub mod br022_ndarray_attribute_in_region;
pub mod br023_tensor_to_string_in_region;
pub mod br030_compiled_call_argument_kind;
pub mod br031_default_generator_call;
pub mod br032_numpy_strings_in_region;
pub mod br033_data_store_on_computed_tensor;
pub mod br034_class_assignment_in_region;
pub mod br035_untraceable_tensor_method;
pub mod br036_grad_tensor_created_in_region;
pub mod br037_untraceable_builtin_call;
pub mod br038_sorted_tensors_in_region;
pub mod br039_constant_context_manager;
pub mod br040_tensor_tuple_comparison;
pub mod br041_outside_context_manager;
pub mod br042_tensor_attribute_store;
pub mod cf001_suppress_errors;
pub mod cf002_dead_compile_gate;
pub mod cr001_shape_as_tensor_stack;
pub mod cr002_export_only_guard;
pub mod cr003_context_manager_across_break;
pub mod cr004_side_effect_in_cond_branch;
pub mod meta;
pub mod rc001_python_counter_in_forward;
pub mod sy001_blocking_host_to_device;
pub mod sy002_device_to_host_read;
pub mod sy003_host_index_on_device_tensor;
pub mod sy004_host_data_tensor_on_device;
pub mod ts001_patched_torch_compile;
pub mod vr001_api_newer_than_floor;

/// Which kind of trouble a rule predicts; the code prefix says the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Crash,
    Break,
    Sync,
    Version,
    Recompile,
    Config,
    Test,
    Meta,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Crash => "crash",
            Family::Break => "break",
            Family::Sync => "sync",
            Family::Version => "version",
            Family::Recompile => "recompile",
            Family::Config => "config",
            Family::Test => "test",
            Family::Meta => "meta",
        }
    }
}

/// Everything the CLI and the doc generator know about a rule, taken from its declaration.
#[derive(Debug)]
pub struct RuleMeta {
    pub code: &'static str,
    pub name: &'static str,
    pub family: Family,
    /// Where findings count: only in traced code, or anywhere (module level included).
    pub scope: Scope,
    /// Torch versions the rule's claim holds for, as a PEP 440-ish range ("all", ">=2.0,<2.7", ...).
    pub torch_versions: &'static str,
    pub fix_available: bool,
    pub summary: &'static str,
    /// Raw doc comment lines joined with '\n' (each still carries the leading space of `/// `).
    pub raw_doc: &'static str,
    pub hooks: Hooks,
}

/// Where the checker calls a rule. Each hook sees the node and the checker (read-only model +
/// `report`); the checker has already updated the model for the node.
#[derive(Debug)]
pub struct Hooks {
    /// Every call expression, with the callee's qualified name when it is an imported one.
    pub call: Option<fn(&mut Checker<'_>, &ast::ExprCall, Option<&str>)>,
    /// Every operand whose truth a branch reads (`if`/`while`/ternary tests, split at `and`/`or`/
    /// `not`; earlier operands already guard later ones).
    pub truth_test: Option<fn(&mut Checker<'_>, &Expr)>,
    /// Every attribute expression.
    pub attribute: Option<fn(&mut Checker<'_>, &ast::ExprAttribute)>,
    /// Every comparison (`a == b`, `a != b < c`, ...).
    pub compare: Option<fn(&mut Checker<'_>, &ast::ExprCompare)>,
    /// Every subscript expression (loads and store targets; `subscript.ctx` tells which).
    pub subscript: Option<fn(&mut Checker<'_>, &ast::ExprSubscript)>,
    /// Every statement, before its children are visited.
    pub statement: Option<fn(&mut Checker<'_>, &Stmt)>,
    /// Once per file after the project is linked (for findings only the whole project can see).
    pub project: Option<fn(&Project<'_>, FileId) -> Vec<Candidate>>,
}

impl Hooks {
    pub const NONE: Hooks = Hooks {
        call: None,
        truth_test: None,
        attribute: None,
        compare: None,
        subscript: None,
        statement: None,
        project: None,
    };
}

impl RuleMeta {
    /// The rule's documentation as markdown (doc comment with the `/// ` prefix removed).
    pub fn doc(&self) -> String {
        let mut out = String::with_capacity(self.raw_doc.len());
        for line in self.raw_doc.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out
    }

    /// The full page: header table plus the doc, used by `graphbreak rule` and `rules/CODE.md`.
    pub fn page(&self) -> String {
        format!(
            "# {code} {name}\n\n| family | torch versions | fix |\n|---|---|---|\n| {family} | {torch} | {fix} |\n\n{summary}\n\n{doc}",
            code = self.code,
            name = self.name,
            family = self.family.as_str(),
            torch = self.torch_versions,
            fix = if self.fix_available {
                "available"
            } else {
                "none"
            },
            summary = self.summary,
            doc = self.doc(),
        )
    }

    /// Where this rule's page is: `<base>/CODE.md` with the configured `rule-url-base` (e.g. the
    /// `rules/` folder of the repository the project installs graphbreak from), else the relative
    /// `rules/CODE.md` of this repository's layout (the repository names no canonical URL).
    pub fn url(&self, base: Option<&str>) -> String {
        let base = base.map_or("rules", |b| b.trim_end_matches('/'));
        format!("{base}/{}.md", self.code)
    }
}

/// Declares a rule: the doc comment becomes both rustdoc and the rule's user-facing documentation;
/// `scope` says where its findings count; `hooks` name the functions the checker calls.
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            code: $code:literal,
            name: $kebab:literal,
            family: $family:ident,
            scope: $scope:ident,
            torch_versions: $torch:literal,
            fix_available: $fix:literal,
            summary: $summary:literal,
            hooks: { $($hook:ident: $hook_fn:path),* $(,)? } $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        pub struct $name;
        impl $name {
            pub const META: $crate::rules::RuleMeta = $crate::rules::RuleMeta {
                code: $code,
                name: $kebab,
                family: $crate::rules::Family::$family,
                scope: $crate::rules::Scope::$scope,
                torch_versions: $torch,
                fix_available: $fix,
                summary: $summary,
                raw_doc: concat!($($doc, "\n"),*),
                hooks: $crate::rules::Hooks {
                    $($hook: Some($hook_fn),)*
                    ..$crate::rules::Hooks::NONE
                },
            };
        }
    };
}
pub(crate) use declare_rule;

/// Every rule, in the order `graphbreak rules` lists them.
pub const ALL: &[&RuleMeta] = &[
    &cr001_shape_as_tensor_stack::ShapeAsTensorStack::META,
    &cr002_export_only_guard::ExportOnlyGuard::META,
    &cr003_context_manager_across_break::ContextManagerAcrossBreak::META,
    &cr004_side_effect_in_cond_branch::SideEffectInCondBranch::META,
    &br001_tensor_truthiness_branch::TensorTruthinessBranch::META,
    &br002_import_probe_in_region::ImportProbeInRegion::META,
    &br003_data_dependent_output_shape::DataDependentOutputShape::META,
    &br004_python_side_effect_in_region::PythonSideEffectInRegion::META,
    &br005_data_dependent_scalar_op::DataDependentScalarOp::META,
    &br006_deliberate_graph_break::DeliberateGraphBreak::META,
    &br007_data_ptr_in_region::DataPtrInRegion::META,
    &br008_side_effect_in_checkpoint::SideEffectInCheckpoint::META,
    &br009_parameter_created_in_region::ParameterCreatedInRegion::META,
    &br010_skipped_function_call::SkippedFunctionCall::META,
    &br011_unwrapped_module_call::UnwrappedModuleCall::META,
    &br012_zero_dim_tensor_index::ZeroDimTensorIndex::META,
    &br013_cached_wrapper_call::CachedWrapperCall::META,
    &br014_argument_probe_call::ArgumentProbeCall::META,
    &sy001_blocking_host_to_device::BlockingHostToDevice::META,
    &sy002_device_to_host_read::DeviceToHostRead::META,
    &sy003_host_index_on_device_tensor::HostIndexOnDeviceTensor::META,
    &sy004_host_data_tensor_on_device::HostDataTensorOnDevice::META,
    &rc001_python_counter_in_forward::PythonCounterInForward::META,
    &vr001_api_newer_than_floor::ApiNewerThanFloor::META,
    &cf001_suppress_errors::SuppressErrors::META,
    &cf002_dead_compile_gate::DeadCompileGate::META,
    &ts001_patched_torch_compile::PatchedTorchCompile::META,
    &br020_class_statement_in_region::ClassStatementInRegion::META,
    &br021_check_message_not_extractable::CheckMessageNotExtractable::META,
    &br022_ndarray_attribute_in_region::NdarrayAttributeInRegion::META,
    &br023_tensor_to_string_in_region::TensorToStringInRegion::META,
    &br030_compiled_call_argument_kind::CompiledCallArgumentKind::META,
    &br031_default_generator_call::DefaultGeneratorCall::META,
    &br032_numpy_strings_in_region::NumpyStringsInRegion::META,
    &br033_data_store_on_computed_tensor::DataStoreOnComputedTensor::META,
    &br034_class_assignment_in_region::ClassAssignmentInRegion::META,
    &br035_untraceable_tensor_method::UntraceableTensorMethod::META,
    &br036_grad_tensor_created_in_region::GradTensorCreatedInRegion::META,
    &br037_untraceable_builtin_call::UntraceableBuiltinCall::META,
    &br038_sorted_tensors_in_region::SortedTensorsInRegion::META,
    &br039_constant_context_manager::ConstantContextManager::META,
    &br040_tensor_tuple_comparison::TensorTupleComparison::META,
    &br041_outside_context_manager::OutsideContextManager::META,
    &br042_tensor_attribute_store::TensorAttributeStore::META,
    &meta::SyntaxError::META,
    &meta::UnreadableFile::META,
    &meta::TooDeeplyNested::META,
    &meta::UnknownSuppressionCode::META,
];

pub fn by_code(code: &str) -> Option<&'static RuleMeta> {
    ALL.iter()
        .copied()
        .find(|r| r.code.eq_ignore_ascii_case(code))
}

/// Whether a code in a suppression comment is meant for graphbreak but names no rule: any code in
/// `# graphbreak: ignore[...]`, and in a `# noqa` one whose letters are a graphbreak rule family's
/// (`BR01`, `SY0002`). Other tools' codes (`F401`, `E501`) are theirs; `E` is shared with
/// pycodestyle, so `E`-codes in a `# noqa` are never claimed.
pub fn is_unknown_own_code(code: &str, own_directive: bool) -> bool {
    if by_code(code).is_some() {
        return false;
    }
    if own_directive {
        return true;
    }
    let letters: String = code.chars().take_while(char::is_ascii_alphabetic).collect();
    !letters.eq_ignore_ascii_case("E")
        && ALL.iter().any(|r| {
            r.code
                .chars()
                .take_while(char::is_ascii_alphabetic)
                .collect::<String>()
                .eq_ignore_ascii_case(&letters)
        })
}

/// Does `pattern` (a full code or a prefix such as `SY` or `CR0`) select at least one rule?
pub fn is_known_selector(pattern: &str) -> bool {
    pattern.eq_ignore_ascii_case("ALL") || ALL.iter().any(|r| selector_matches(pattern, r.code))
}

pub fn selector_matches(pattern: &str, code: &str) -> bool {
    pattern.eq_ignore_ascii_case("ALL")
        || (code.len() >= pattern.len() && code[..pattern.len()].eq_ignore_ascii_case(pattern))
}

/// The last component of a path, for a message that points at another file (`modeling_x.py:42`).
pub(crate) fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// How a message names a graph-break type: its code in Dynamo's registry (`GB0007`, from
/// `rules/data/graph_breaks.toml`) followed by the type, or the type alone where no generated
/// registry has it.
pub(crate) fn graph_break_label(gb_type: &str) -> String {
    match crate::semantic::data::TORCH.generated.gb_code(gb_type) {
        Some(code) => format!("{code} {gb_type}"),
        None => gb_type.to_owned(),
    }
}

/// A finding reported at a place computed directly — by a project hook (`Hooks::project`) or as
/// a file-level diagnostic (a syntax error) — with no fix, no version bound and no link-time
/// condition: the fields a checker-built finding fills are empty.
/// `func`: the function it is in (`None`: module level, as CF002's compile gate).
pub(crate) fn project_candidate(
    meta: &RuleMeta,
    message: String,
    (location, end_location): (crate::source::Location, crate::source::Location),
    func: Option<crate::semantic::summary::FuncIdx>,
    path: Vec<crate::semantic::summary::PathStep>,
    hazard: crate::semantic::summary::Hazard,
) -> Candidate {
    Candidate {
        code: meta.code,
        message,
        location,
        end_location,
        statement_rows: (location.row, end_location.row),
        fix: None,
        func,
        path,
        scope: meta.scope,
        hazard,
        holds_below: None,
        host_index: None,
        tensor_params: None,
        tensor_params_masks: false,
        tensor_returns: None,
        tensor_returns_masks: false,
        conditional_block: None,
        cites: None,
        after_break_since: None,
        dynamo_config: None,
        fullgraph_only: None,
    }
}
