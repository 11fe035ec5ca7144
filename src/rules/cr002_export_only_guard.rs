use crate::rules::declare_rule;

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
    /// broken on another.
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
        torch_versions: ">=2.0",
        fix_available: false,
        summary: "guard checks only an export/tracing predicate; the torch.compile path takes the branch that breaks",
    }
}
