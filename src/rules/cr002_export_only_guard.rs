use crate::rules::declare_rule;
use crate::semantic::Sym;
use crate::semantic::cond::{Assumptions, ExportReading, Truth, display};
use crate::semantic::data::{CompileValue, PredicateKind};
use crate::semantic::link::Project;
use crate::semantic::summary::{Branch, Candidate, FileId, Hazard, PathStep};

declare_rule! {
    /// ## What it does
    /// Flags a guard that tests only an export or tracing predicate —
    /// `torch.compiler.is_exporting()`, `torch.onnx.is_in_onnx_export()`, `torch.jit.is_tracing()`
    /// (or a project helper wrapping them) — when the branch that runs under `torch.compile` holds
    /// code that breaks the graph or crashes Dynamo.
    ///
    /// ## Why is this bad?
    /// The guard was written to keep export-only code away from eager/compiled runs, but
    /// `torch.compile` is neither ONNX export nor TorchScript tracing: under Dynamo those predicates
    /// are False, and the fallback branch is traced. `torch.compiler.is_exporting()` does not exist
    /// before torch 2.7, so a `getattr(torch.compiler, "is_exporting", lambda: False)` guard falls
    /// through to the fallback on older versions too. The same source is fine on one torch and
    /// broken on another. The message says what the traced branch does: "the compile crashes"
    /// (a CR001 behind the guard) or "breaks the graph" (a BR001 / SY002 read). Guard and hazard
    /// are one cause: when the hazard is reported, this finding is merged into it (its message
    /// appended, `CR002` in `also`, on the hazard's line); it stands on the guard's line only when
    /// the hazard is not reported (not selected, or folded into a frame skip).
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     if torch.jit.is_tracing():
    ///         sizes = [list(x.shape[2:])]
    ///     else:
    ///         sizes = torch.stack([torch._shape_as_tensor(x)[2:4]])  # traced by torch.compile
    /// ```
    ///
    /// ## Fix
    /// Add `torch.compiler.is_compiling()` to the guard so the compiled path takes the safe branch:
    /// ```python
    ///     if torch.jit.is_tracing() or torch.compiler.is_compiling():
    /// ```
    ///
    /// ## Torch versions
    /// All versions for `is_in_onnx_export` / `is_tracing`; for `is_exporting`, torch < 2.7 (API
    /// missing) and any version where it is False under `torch.compile`.
    pub struct ExportOnlyGuard {
        code: "CR002",
        name: "export-only-guard",
        family: Crash,
        scope: CompiledRegion,
        torch_versions: ">=2.0",
        fix_available: false,
        summary: "guard checks only an export/tracing predicate; the torch.compile path takes the branch that breaks",
        hooks: { project: check_project },
    }
}

/// Guards on export/tracing predicates whose compile-time branch (with those predicates False, as
/// on the torch versions where the export path is not taken) holds a traced break or crash.
fn check_project(project: &Project<'_>, file: FileId) -> Vec<Candidate> {
    let summary = &project.files[file as usize];
    let resolve = |sym: &Sym| project.predicate_formula(sym, file);
    let resolve_flag = |sym: &Sym| project.version_flag_formula(sym, file);
    let assume = Assumptions {
        torch_floor: summary.torch_floor,
        export_reading: ExportReading::AllFalse,
        input_is_tensor: false,
        flag_at_default: &|_: &str| false,
        vararg_len: None,
        param_is_size: &|_: &str| false,
        param_value: &|_: &str| None,
        self_attr: &|_: &str| None,
        resolve_call: &resolve,
        resolve_flag: &resolve_flag,
        option_value: &|_: &str| None,
        setting_value: &|_: &str| None,
    };
    let mut out = Vec::new();
    for (guard_idx, guard) in summary.guards.iter().enumerate() {
        // The cheap tests first: resolving the condition's calls is the costly part.
        let Some(func) = guard.func else { continue };
        if !project.guard_traced(file, func, guard.location.row) {
            continue;
        }
        let Some(export) = guard.cond.export_predicate(&resolve, 0) else {
            continue;
        };
        let taken = match guard.cond.eval(&assume) {
            Truth::True => Branch::WhenTrue,
            Truth::False => Branch::WhenFalse,
            Truth::Unknown => continue,
        };
        let step = PathStep::Guard(guard_idx as u32, taken);
        // Only a hazard that stands once linked: one whose link checks fail (a `self.<attr>`
        // call of a class that is no unwrapped module) or are pending until the whole project
        // is known (a host index through callers, a parameter's tensor-ness from its calls, a
        // version bound) is no reason to report.
        let hazard = summary
            .candidates
            .iter()
            .enumerate()
            .find_map(|(index, c)| {
                (c.hazard != Hazard::NoBreak
                    && c.path.contains(&step)
                    && c.host_index.is_none()
                    && c.tensor_params.is_none()
                    && c.tensor_returns.is_none()
                    && c.holds_below.is_none()
                    && project.is_traced(file, c)
                    && project.class_checks_hold(file, index))
                .then_some(c)
            });
        let Some(hazard) = hazard else { continue };
        let why = match export.kind {
            PredicateKind::Exporting => {
                "is missing before torch 2.7 (a getattr fallback returns False) and is True inside torch.compile only on newer torch (measured on 2.9, 2.11)"
            }
            _ if export.value_under_compile(summary.torch_floor) == CompileValue::False => {
                "is False under torch.compile"
            }
            _ => "is False under torch.compile on some supported torch versions",
        };
        out.push(Candidate {
            code: ExportOnlyGuard::META.code,
            message: format!(
                "guard tests only `{}`, which {why}; then the branch with {} at line {} is traced and {} — add `torch.compiler.is_compiling()` to the guard",
                display(export.kind),
                hazard.code,
                hazard.location.row,
                match hazard.hazard {
                    Hazard::Crash => "the compile crashes",
                    _ => "breaks the graph",
                }
            ),
            location: guard.location,
            end_location: guard.end_location,
            statement_rows: (guard.location.row, guard.end_location.row),
            fix: None,
            func: Some(func),
            path: Vec::new(),
            scope: ExportOnlyGuard::META.scope,
            hazard: hazard.hazard,
            holds_below: None,
            host_index: None,
            tensor_params: None,
            tensor_params_masks: false,
            tensor_returns: None,
            tensor_returns_masks: false,
            conditional_block: None,
            cites: Some(hazard.location),
            after_break_since: None,
            dynamo_config: None,
            fullgraph_only: None,
        });
    }
    out
}
