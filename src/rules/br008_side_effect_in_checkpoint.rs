use crate::rules::declare_rule;
use crate::semantic::link::Project;
use crate::semantic::summary::{Candidate, FileId, Hazard};

declare_rule! {
    /// ## What it does
    /// Flags `torch.utils.checkpoint.checkpoint(fn, ...)` in code Dynamo traces when `fn` writes
    /// state outside itself: an attribute store (`self.calls += 1`, `self.cache = y`) or an
    /// in-place container mutation (`self.saved.append(y)`, `stats.update(...)`) on an object
    /// the function did not create. The finding is at the write, where Dynamo reports the break
    /// (its innermost user frame, measured on torch 2.5, 2.8 and 2.11; 2.2 named the call), when the checkpointed function is in the same file; otherwise
    /// at the `checkpoint(...)` call, naming the write.
    ///
    /// ## Why is this bad?
    /// Dynamo traces the checkpointed function as the body of a higher-order op, and a body may
    /// not mutate anything outside its own scope: measured on torch 2.11 (backend="eager"),
    /// GB0067 "HOP: Unsafe side effect", reported at the write — the graph breaks at the
    /// checkpoint and the region runs eagerly. The same write in ordinary (non-checkpointed) code traces fine. On torch 2.2 the
    /// break was "speculate_subgraph: while introspecting torch.utils.checkpoint".
    ///
    /// Because the checkpointed function is traced, other rules now also look inside it (its
    /// `print`, `.item()`, ... are reported where they are).
    ///
    /// ## Example
    /// ```python
    /// def body(self, x):
    ///     self.calls += 1
    ///     return self.mlp(x)
    ///
    /// def forward(self, x):
    ///     return checkpoint(self.body, x, use_reentrant=False)
    /// ```
    ///
    /// ## Fix
    /// Keep checkpointed functions pure: return what you need to record and store it after the
    /// `checkpoint(...)` call, outside the higher-order op.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2 and 2.11.
    pub struct SideEffectInCheckpoint {
        code: "BR008",
        name: "side-effect-in-checkpoint",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "checkpointed function writes outside state (attribute, list append): graph break at the checkpoint",
        hooks: { project: check_project },
    }
}

fn check_project(project: &Project<'_>, file: FileId) -> Vec<Candidate> {
    let summary = &project.files[file as usize];
    let mut out = Vec::new();
    for site in &summary.checkpoint_sites {
        let Some(((callee_file, callee), name, path, write)) =
            project.outside_write_of(&site.callee, file)
        else {
            continue;
        };
        let label = super::graph_break_label("HOP: Unsafe side effect");
        // Dynamo reports the break at the write itself (measured on torch 2.11: the `append`
        // line, under the checkpoint's higher-order op); report it there when the checkpointed
        // function is in this file, else at the `checkpoint(...)` call.
        let candidate = if callee_file == file {
            super::project_candidate(
                &SideEffectInCheckpoint::META,
                format!(
                    "`{name}` {} and runs under `torch.utils.checkpoint.checkpoint` (line {}): a side effect inside the checkpoint's higher-order op, graph break under torch.compile ({label})",
                    write.what, site.location.row
                ),
                (write.location, write.location),
                Some(callee),
                Vec::new(),
                Hazard::GraphBreak,
            )
        } else {
            super::project_candidate(
                &SideEffectInCheckpoint::META,
                format!(
                    "checkpointed `{name}` {} ({}:{}): a side effect inside the checkpoint's higher-order op, graph break under torch.compile ({label})",
                    write.what,
                    super::file_name(path),
                    write.location.row
                ),
                (site.location, site.end_location),
                Some(site.func),
                site.path.clone(),
                Hazard::GraphBreak,
            )
        };
        if project.is_traced(file, &candidate) {
            out.push(candidate);
        }
    }
    out
}
