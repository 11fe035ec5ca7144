//! Frames Dynamo skips because of a break in a callee.
//!
//! Dynamo inlines a project function it calls. When the inlined code breaks, the break happens at
//! the call in the caller's frame; if that call is inside a `for`/`while` body or a `try` body,
//! Dynamo cannot resume there and skips the caller's whole frame (it runs eagerly; the callee is
//! still compiled as a frame of its own, so its break is real). Measured on torch 2.2, 2.5, 2.8
//! and 2.11 (Python 3.11, `nested_graph_breaks` off, its default on 2.11): the caller's later
//! breaks give no break reason and no graph; a break before the loop is still a break (the loop
//! is in its resume function); a callee that breaks only for some Python argument does not skip
//! the frame when it is not taken; a chain `f → g → h` with the break in `h` skips `f` too
//! (`tests/python/test_frame_skip_proofs.py`).
//!
//! A function **certainly breaks** when every call of it hits a break the rules know
//! (`FileSummary::certain_breaks`: no branch, guard or failure path around it) or makes
//! such a call to a function that certainly breaks (`FileSummary::every_call_calls`, a few hops).
//! Statement loops around the break do not count against it: a break at the top level of a
//! `for`/`while` body (no branch inside the loop around it) is hit on the first iteration of every
//! call that enters the loop — a loop of the callee's own (`for _ in range(self.iters)`) runs in
//! the calls that matter, and one that runs zero times is the case this gets wrong. Measured on
//! the four spent draws (2026-12-01, -second, -third, 2026-12-02): two caller findings fold, both
//! judged wrong (a loss whose per-item helper breaks in its own iteration loop), recall unchanged
//! (`corpus/rules/BR004/positive.py` `LoopingStepRefine`).
//! Only calls from a loop or `try` body whose function has a later hazard ask, so this is cheap.
//!
//! A callee that breaks only on some path (a data-dependent branch or `.item()` under a Python
//! test) does not count: measured by folding on any reported break of the callee instead, on the
//! three spent draws (2026-12-01, -second, -third), 5 caller findings fold and runtime recall drops
//! 49/68 -> 47/68 (two of the folded lines were real runtime breaks: the callee's break path was
//! not taken on that run, so Dynamo went on tracing the caller). A callee whose early return is
//! taken on a tensor test breaks at that test, which is its certain break.

use super::*;
use crate::semantic::summary::FrameSkipCall;
use crate::source::Location;

/// How many calls deep a break is looked for below the callee.
const MAX_DEPTH: u32 = 3;

/// The break a call certainly hits: where it is, and the functions called on the way.
#[derive(Clone, Debug)]
pub struct CertainBreakAt {
    pub file: FileId,
    pub location: Location,
    /// The function the call names first, then each function called on the way to the break.
    pub chain: Vec<String>,
}

impl<'a> Project<'a> {
    /// The break that every call of `func` hits, if the model knows one (looking `depth` calls
    /// deep already).
    fn certain_break_within(&self, (file, idx): FuncRef, depth: u32) -> Option<CertainBreakAt> {
        let summary = &self.files[file as usize];
        let info = summary.functions.get(idx as usize)?;
        // A disabled function is not inlined: the call itself is the break (BR006 reports it).
        if info.disabled || info.disabled_frame_only {
            return None;
        }
        if let Some(found) = summary.certain_breaks.iter().find(|b| b.func == idx) {
            return Some(CertainBreakAt {
                file,
                location: found.location,
                chain: vec![info.name.clone()],
            });
        }
        if depth >= MAX_DEPTH {
            return None;
        }
        summary
            .every_call_calls
            .iter()
            .filter(|&&(caller, _)| caller == idx)
            .find_map(|&(_, call)| {
                let edge = info.calls.get(call as usize)?;
                let mut found = self.every_target_breaks(&edge.sym, file, depth + 1)?;
                found.chain.insert(0, info.name.clone());
                Some(found)
            })
    }

    /// When `sym` (called from `file`) resolves to project functions only and each of them
    /// certainly breaks: the first one's break.
    fn every_target_breaks(&self, sym: &Sym, file: FileId, depth: u32) -> Option<CertainBreakAt> {
        let targets = self.resolve_sym(sym, file);
        let mut first = None;
        for target in targets {
            let Target::Function(func) = target else {
                return None;
            };
            let found = self.certain_break_within(func, depth)?;
            first.get_or_insert(found);
        }
        first
    }

    /// When this call in a loop or `try` body is traced and its callee certainly breaks: the
    /// break, so the caller's frame is skipped from the call on.
    pub fn skips_frame_at(&self, file: FileId, site: &FrameSkipCall) -> Option<CertainBreakAt> {
        let info = &self.files[file as usize].functions[site.func as usize];
        let edge = info.calls.get(site.call as usize)?;
        // Only a call Dynamo traces, on a path without an exception or failure step.
        if !edge
            .path
            .iter()
            .all(|step| matches!(step, PathStep::Guard(..)))
            || self.eager_only(file, site.func, edge.path.iter())
        {
            return None;
        }
        self.every_target_breaks(&edge.sym, file, 0)
    }
}
