//! "Why is this traced?": the call chain from a compile root to a function of the region
//! (`reached_from` in JSON, the `via` line of `full`, `scan --why`, `scan --show-reached`), read
//! from the first caller the closure recorded for each function (`Project::reached_by`).

use super::link::{FuncRef, Project};
use crate::diagnostics::ChainLink;
use rustc_hash::FxHashSet as HashSet;

impl Project<'_> {
    /// The chain from a root to `func` (root first), empty when `func` is not in the computed
    /// region.
    pub fn chain(&self, func: FuncRef) -> Vec<ChainLink> {
        if !self.in_region.contains(&func) {
            return Vec::new();
        }
        let mut links: Vec<ChainLink> = Vec::new();
        let mut seen: HashSet<FuncRef> = HashSet::default();
        let mut current = func;
        loop {
            if !seen.insert(current) {
                break;
            }
            let (name, _, _) = self.describe(current);
            // The root set built once at link time: without configured roots every forward is a
            // root, and collecting them again per finding was 2% of a large tree's scan.
            let by = (!self.root_funcs.contains(&current))
                .then(|| self.reached_by.get(&current).copied())
                .flatten();
            let Some(by) = by else {
                links.push(ChainLink {
                    function: name,
                    call: None,
                    by_name: false,
                });
                break;
            };
            let caller_path = self.files[by.caller.0 as usize].path.clone();
            links.push(ChainLink {
                function: name,
                call: Some((caller_path, by.row)),
                by_name: by.by_name,
            });
            current = by.caller;
        }
        links.reverse();
        links
    }

    /// The root a chain starts at, with the reason it is one.
    pub fn root_reason(&self, func: FuncRef) -> Option<&str> {
        self.roots
            .iter()
            .find(|r| r.func == func)
            .map(|r| r.reason.as_str())
    }

    /// Every function of the region, sorted by file and row.
    pub fn region_functions(&self) -> Vec<FuncRef> {
        let mut functions: Vec<FuncRef> = self.in_region.iter().copied().collect();
        functions.sort_by(|a, b| {
            let (fa, fb) = (&self.files[a.0 as usize], &self.files[b.0 as usize]);
            (&fa.path, fa.functions[a.1 as usize].line)
                .cmp(&(&fb.path, fb.functions[b.1 as usize].line))
        });
        functions
    }
}
