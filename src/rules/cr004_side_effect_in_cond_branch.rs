use crate::rules::declare_rule;
use crate::semantic::link::Project;
use crate::semantic::summary::{Candidate, FileId, Hazard};

declare_rule! {
    /// ## What it does
    /// Flags a `torch.cond(pred, true_fn, false_fn, operands)` branch, in code Dynamo traces,
    /// that writes state outside itself: an attribute store (`self.calls += 1`) or an in-place
    /// container mutation (`saved.append(x)`) on an object the branch did not create. The
    /// finding is at the write when the branch is in the same file (where torch 2.11 reports it),
    /// otherwise at the `torch.cond(...)` call, naming the write.
    ///
    /// ## Why is this bad?
    /// `torch.cond` traces each branch with Dynamo as the body of a higher-order op — even when
    /// called eagerly — and a body may not mutate anything outside its own scope. That is not a
    /// graph break Dynamo recovers from: the call raises, compiled or not — measured with
    /// `backend="eager"` (without `fullgraph`) and eagerly on torch 2.2, 2.5, 2.8 and 2.11,
    /// `UncapturedHigherOrderOpError` "Cond doesn't work unless it is captured completely with
    /// torch.compile" (2.11: "This higher order operator doesn't work unless it is captured
    /// completely"; the cause it names is GB0067 "HOP: Unsafe side effect"). A function written
    /// for `torch.cond` that mutates state fails the first time the branch is traced.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     def grow(x):
    ///         self.calls += 1          # torch.cond raises (compiled or not)
    ///         return x.sin()
    ///     return torch.cond(x.sum() > 0, grow, torch.cos, (x,))
    /// ```
    ///
    /// ## Fix
    /// Keep branches pure: return what you need to record and store it after the `torch.cond`.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (tests/python/test_cond_branch_proofs.py).
    pub struct SideEffectInCondBranch {
        code: "CR004",
        name: "side-effect-in-cond-branch",
        family: Crash,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "torch.cond branch that writes outside state (attribute, list append): the call raises (torch.cond traces its branches, eagerly too)",
        hooks: { project: check_project },
    }
}

fn check_project(project: &Project<'_>, file: FileId) -> Vec<Candidate> {
    let summary = &project.files[file as usize];
    let mut out = Vec::new();
    for site in &summary.cond_branch_sites {
        let Some(((callee_file, callee), name, path, write)) =
            project.outside_write_of(&site.callee, file)
        else {
            continue;
        };
        const CONSEQUENCE: &str = "torch.cond traces its branches with Dynamo (eagerly too) and cannot capture one that mutates outside state: the call raises (UncapturedHigherOrderOpError, HOP: Unsafe side effect); return the value and store it after the cond";
        // Torch 2.11 names the write as the innermost frame; 2.2-2.8 the `torch.cond` call.
        let (message, location, end_location, func, at_path) = if callee_file == file {
            (
                format!(
                    "`{name}` {} and is a branch of `torch.cond` (line {}): {CONSEQUENCE}",
                    write.what, site.location.row
                ),
                write.location,
                write.location,
                callee,
                Vec::new(),
            )
        } else {
            (
                format!(
                    "`torch.cond` branch `{name}` {} ({}:{}): {CONSEQUENCE}",
                    write.what,
                    super::file_name(path),
                    write.location.row
                ),
                site.location,
                site.end_location,
                site.func,
                site.path.clone(),
            )
        };
        let candidate = super::project_candidate(
            &SideEffectInCondBranch::META,
            message,
            (location, end_location),
            Some(func),
            at_path,
            Hazard::Crash,
        );
        if project.is_traced(file, &candidate) {
            out.push(candidate);
        }
    }
    out
}
