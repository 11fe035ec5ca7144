//! One finding per cause: the findings one statement gets become one diagnostic.
//!
//! `mask.nonzero().tolist()` is one statement with one cause (a data-dependent value leaves the
//! graph); it used to read as two findings (BR003 and SY002). The findings of one statement (same
//! file, same statement rows) merge into one whose code is the **primary** one and whose message
//! names the others; `Diagnostic::also` keeps their codes (JSON `"also"`). A `# noqa` naming any
//! of the merged codes suppresses the merged finding.
//!
//! The primary is chosen deterministically by family, the worst consequence first: crash, then
//! break, sync, recompile, version, config, test, meta; within a family, the first by location
//! and then by code. Two findings of the same code on one statement (`x.cpu().numpy()` is one
//! read) keep only the first. Meta findings (E001–E004: the file or a suppression comment itself)
//! are another cause and stand alone.
//!
//! Before that, per function: a hazard that makes Dynamo give up on the whole frame
//! (`Hazard::FrameSkip`: any break inside a loop or a `try` body, `.data_ptr()`, an RNN module)
//! means the frame runs eagerly, so the later breaks, skips and crashes of that function are never
//! traced and are not separate causes (torch 2.2–2.11: a function with a break in a loop and
//! another after it gives 0 graphs and no break reasons; a graph break outside those blocks, by
//! contrast, resumes in a new frame and the later breaks are real, so they stay). Only findings
//! that run after the skip on every path fold — inside its innermost conditional block (an `if`
//! branch, a side of a conditional expression), or anywhere later when it has none; a break
//! after an `if` whose branch holds the skip is real when the branch is not taken. Syncs stay
//! (the eager frame still syncs). The first one names the later ones' lines instead.
//!
//! A call inside a loop or `try` body to a function that certainly breaks
//! (`semantic/link/frame_skips.rs`) skips the caller's frame the same way: the caller's later
//! hazards fold into the call, and the callee's break (the one finding; it stays, the callee is
//! compiled as a frame of its own) names the call and their lines (`scan/mod.rs`, `SkipNote`).
//! A break inside a `with` over a project context manager counts like one in a loop or `try`
//! (`semantic/model/context_managers.rs`).
//!
//! Before the per-statement merge, a finding about another one (CR002: a guard whose traced
//! branch holds a hazard, `Candidate::cites`) merges into the cited finding (`merge_into_cited`).

use crate::diagnostics::{Diagnostic, Noqa};
use crate::rules::{self, Family};
use crate::semantic::link::CertainBreakAt;
use crate::semantic::summary::{Candidate, FrameSkipCall, Hazard};
use crate::source::Location;
use std::collections::HashMap;

/// The rows that identify a finding's statement. A finding in an `elif` test is stamped with
/// the rows of its `if` header; it is its own statement.
fn statement_key(diagnostic: &Diagnostic) -> (u32, u32) {
    let (first, last) = diagnostic.statement_rows;
    if (first..=last).contains(&diagnostic.location.row) {
        (first, last)
    } else {
        (diagnostic.location.row, diagnostic.end_location.row)
    }
}

/// How bad a family's consequence is: lower is reported first.
fn severity(code: &str) -> u8 {
    match rules::by_code(code).map(|rule| rule.family) {
        Some(Family::Crash) => 0,
        Some(Family::Break) => 1,
        Some(Family::Sync) => 2,
        Some(Family::Recompile) => 3,
        Some(Family::Version) => 4,
        Some(Family::Config) => 5,
        Some(Family::Test) => 6,
        Some(Family::Meta) | None => 7,
    }
}

/// A finding about the file or a comment rather than the code (`E004` an unknown noqa code).
fn is_meta(code: &str) -> bool {
    rules::by_code(code).is_some_and(|rule| rule.family == Family::Meta)
}

/// Merges the findings of each statement of one file into one diagnostic, then drops those a
/// `noqa` on one of their rows suppresses for any of their codes.
pub fn merge_per_statement(
    mut diagnostics: Vec<Diagnostic>,
    noqa: &rustc_hash::FxHashMap<u32, Noqa>,
) -> Vec<Diagnostic> {
    // Of two findings starting at one place (`torch.arange(n).expand(m)`), the narrower comes
    // first: the inner call is evaluated, and breaks, before the outer one.
    diagnostics.sort_by(|a, b| {
        (
            &a.path,
            statement_key(a),
            severity(a.code),
            a.location,
            a.end_location,
            a.code,
        )
            .cmp(&(
                &b.path,
                statement_key(b),
                severity(b.code),
                b.location,
                b.end_location,
                b.code,
            ))
    });
    let mut merged: Vec<(Diagnostic, Vec<u32>)> = Vec::with_capacity(diagnostics.len());
    for diagnostic in diagnostics {
        if let Some((primary, rows)) = merged.last_mut()
            && primary.path == diagnostic.path
            && statement_key(primary) == statement_key(&diagnostic)
            && !is_meta(primary.code)
            && !is_meta(diagnostic.code)
        {
            rows.push(diagnostic.location.row);
            if diagnostic.code != primary.code && !primary.also.contains(&diagnostic.code) {
                primary.also.push(diagnostic.code);
                for code in &diagnostic.also {
                    if *code != primary.code && !primary.also.contains(code) {
                        primary.also.push(code);
                    }
                }
                primary.message = format!(
                    "{}; also {}: {}",
                    primary.message, diagnostic.code, diagnostic.message
                );
                if primary.fix.is_none() {
                    primary.fix = diagnostic.fix;
                }
            }
            continue;
        }
        let row = diagnostic.location.row;
        merged.push((diagnostic, vec![row]));
    }
    merged
        .into_iter()
        .filter(|(diagnostic, rows)| {
            !rows.iter().any(|row| {
                noqa.get(row).is_some_and(|directive| {
                    std::iter::once(&diagnostic.code)
                        .chain(diagnostic.also.iter())
                        .any(|code| directive.suppresses(code))
                })
            })
        })
        .map(|(diagnostic, _)| diagnostic)
        .collect()
}

/// Keeps a finding that holds only after a graph break (`Candidate::after_break_since`: a value
/// built on that row crosses the break into the resumed frame) when a selected finding of the same
/// function that breaks or skips the frame lies between: on a later statement than the value and
/// an earlier one than the finding. Every other finding passes unchanged.
pub fn keep_after_breaks(candidates: Vec<&Candidate>) -> Vec<&Candidate> {
    if candidates.iter().all(|c| c.after_break_since.is_none()) {
        return candidates;
    }
    let breaks: Vec<(u32, (u32, u32), Location)> = candidates
        .iter()
        .filter(|c| {
            matches!(c.hazard, Hazard::GraphBreak | Hazard::FrameSkip)
                && c.after_break_since.is_none()
        })
        .filter_map(|c| Some((c.func?, c.statement_rows, c.location)))
        .collect();
    candidates
        .into_iter()
        .filter(|candidate| {
            let (Some(since), Some(func)) = (candidate.after_break_since, candidate.func) else {
                return true;
            };
            breaks.iter().any(|&(break_func, rows, location)| {
                break_func == func
                    && rows.0 > since
                    && location < candidate.location
                    && rows != candidate.statement_rows
            })
        })
        .collect()
}

/// A kept finding: its candidate, its message and the codes merged into it.
pub type Kept<'c> = (&'c Candidate, String, Vec<&'static str>);

/// A finding about another one (`Candidate::cites`: CR002's guard that lets a traced hazard
/// through) is one cause with it: when the cited finding is kept, the citing one merges into it
/// (its message appended, its code in `also`) instead of standing on its own row. It stands
/// alone when the cited one is not reported (folded into a frame skip, not selected) or when a
/// `noqa` on its own row names its code (then it is suppressed, and the cited one is not
/// touched).
pub fn merge_into_cited<'c>(
    kept: Vec<(&'c Candidate, String)>,
    noqa: &rustc_hash::FxHashMap<u32, Noqa>,
) -> Vec<Kept<'c>> {
    let mut kept: Vec<Kept<'c>> = kept
        .into_iter()
        .map(|(candidate, message)| (candidate, message, Vec::new()))
        .collect();
    if !kept.iter().any(|(c, _, _)| c.cites.is_some()) {
        return kept;
    }
    let suppressed = |candidate: &Candidate| {
        (candidate.statement_rows.0..=candidate.statement_rows.1)
            .chain(std::iter::once(candidate.location.row))
            .any(|row| {
                noqa.get(&row)
                    .is_some_and(|directive| directive.suppresses(candidate.code))
            })
    };
    let index_at: HashMap<Location, usize> = kept
        .iter()
        .enumerate()
        .filter(|(_, (c, _, _))| c.cites.is_none())
        .map(|(index, (c, _, _))| (c.location, index))
        .collect();
    let mut merged = vec![false; kept.len()];
    for citing in 0..kept.len() {
        let candidate = kept[citing].0;
        let Some(cited) = candidate.cites.and_then(|at| index_at.get(&at).copied()) else {
            continue;
        };
        if suppressed(candidate) {
            continue;
        }
        let text = format!(
            "; also {} (line {}): {}",
            candidate.code, candidate.location.row, kept[citing].1
        );
        let (_, message, also) = &mut kept[cited];
        message.push_str(&text);
        if !also.contains(&candidate.code) {
            also.push(candidate.code);
        }
        merged[citing] = true;
    }
    kept.into_iter()
        .zip(merged)
        .filter_map(|(entry, merged)| (!merged).then_some(entry))
        .collect()
}

/// A call inside a loop or `try` body whose callee certainly breaks
/// (`semantic/link/frame_skips.rs`): Dynamo skips the caller's frame at this call, like a break of
/// the caller's own there. It is not a finding (the callee's break is); the caller's later
/// hazards fold into it and are named on the callee's break instead.
pub struct CalleeSkip<'p> {
    pub site: &'p FrameSkipCall,
    pub at: CertainBreakAt,
}

/// The rows of a caller's later hazards that one callee skip (its index) folded.
pub type CalleeFold = (usize, Vec<u32>);

/// A skip a later hazard folds into: a kept finding, or a call whose callee breaks.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum SkipAt {
    Finding(usize),
    Call(usize),
}

/// Per function, keeps the first frame-skipping finding (by location) and folds into its message
/// the later findings of that function that are about tracing (a break, a frame skip, a crash)
/// that run only after it did (inside its innermost conditional block, or anywhere after it when
/// it is on every path through the function);
/// every other finding passes unchanged (a sync still happens in the eager frame). A call in
/// `callee_skips` skips the frame the same way (unless an earlier skip already did): the findings
/// after it fold into it. Returns each kept finding with its message, and per callee skip that
/// folded something (its index in `callee_skips`) the rows it folded.
pub fn fold_frame_skips<'c>(
    mut candidates: Vec<&'c Candidate>,
    callee_skips: &[CalleeSkip<'_>],
) -> (Vec<(&'c Candidate, String)>, Vec<CalleeFold>) {
    candidates.sort_by_key(|c| (c.location, c.code));
    let mut calls: Vec<usize> = (0..callee_skips.len()).collect();
    calls.sort_by_key(|&index| callee_skips[index].site.location);
    let mut calls = calls.into_iter().peekable();
    let mut skips_of_frame: HashMap<u32, Vec<SkipAt>> = HashMap::new();
    let mut later: HashMap<SkipAt, Vec<u32>> = HashMap::new();
    let mut kept: Vec<&Candidate> = Vec::with_capacity(candidates.len());
    // The statement and conditional block of a skip.
    let place = |kept: &Vec<&Candidate>, skip: SkipAt| match skip {
        SkipAt::Finding(index) => (kept[index].statement_rows, kept[index].conditional_block),
        SkipAt::Call(index) => {
            let site = callee_skips[index].site;
            (site.statement_rows, site.conditional_block)
        }
    };
    // The earlier skip of `func` that code at `row` of statement `statement` runs after.
    let folded_by = |kept: &Vec<&Candidate>,
                     skips_of_frame: &HashMap<u32, Vec<SkipAt>>,
                     func: u32,
                     statement: (u32, u32),
                     row: u32| {
        skips_of_frame.get(&func)?.iter().copied().find(|&skip| {
            let (skip_statement, block) = place(kept, skip);
            // The skipping statement's own findings stay (they merge per statement).
            skip_statement != statement
                && block.is_none_or(|(first, last)| (first..=last).contains(&row))
        })
    };
    for candidate in candidates {
        // The calls before this finding skip the frame first (unless a skip before them did).
        // A finding of the call's own statement comes first: the statement's arguments run
        // before the call, and its own skip (if any) is the one the later hazards fold into.
        while let Some(&index) = calls.peek()
            && callee_skips[index].site.location < candidate.location
            && callee_skips[index].site.statement_rows != candidate.statement_rows
        {
            calls.next();
            let site = callee_skips[index].site;
            let own_skip = skips_of_frame.get(&site.func).is_some_and(|skips| {
                skips.iter().any(|&skip| {
                    matches!(skip, SkipAt::Finding(_))
                        && place(&kept, skip).0 == site.statement_rows
                })
            });
            if !own_skip
                && folded_by(
                    &kept,
                    &skips_of_frame,
                    site.func,
                    site.statement_rows,
                    site.location.row,
                )
                .is_none()
            {
                skips_of_frame
                    .entry(site.func)
                    .or_default()
                    .push(SkipAt::Call(index));
            }
        }
        let Some(func) = candidate.func else {
            kept.push(candidate);
            continue;
        };
        if candidate.hazard != Hazard::NoBreak
            && let Some(first) = folded_by(
                &kept,
                &skips_of_frame,
                func,
                candidate.statement_rows,
                candidate.location.row,
            )
        {
            later.entry(first).or_default().push(candidate.location.row);
            continue;
        }
        if candidate.hazard == Hazard::FrameSkip {
            skips_of_frame
                .entry(func)
                .or_default()
                .push(SkipAt::Finding(kept.len()));
        }
        kept.push(candidate);
    }
    let mut callee_folds: Vec<CalleeFold> = later
        .iter()
        .filter_map(|(skip, rows)| match skip {
            SkipAt::Call(index) => {
                let mut rows = rows.clone();
                rows.dedup();
                Some((*index, rows))
            }
            SkipAt::Finding(_) => None,
        })
        .collect();
    callee_folds.sort();
    let kept = kept
        .into_iter()
        .enumerate()
        .map(|(index, candidate)| {
            let message = match later.get(&SkipAt::Finding(index)) {
                Some(rows) => {
                    let mut rows = rows.clone();
                    rows.dedup();
                    format!(
                        "{} (the frame runs eagerly, so its later hazards on {} are never traced: not separate causes)",
                        candidate.message,
                        lines_text(&rows)
                    )
                }
                None => candidate.message.clone(),
            };
            (candidate, message)
        })
        .collect();
    (kept, callee_folds)
}

/// `line 7` / `lines 7, 9`.
pub fn lines_text(rows: &[u32]) -> String {
    let rows: Vec<String> = rows.iter().map(u32::to_string).collect();
    format!(
        "line{} {}",
        if rows.len() == 1 { "" } else { "s" },
        rows.join(", ")
    )
}
