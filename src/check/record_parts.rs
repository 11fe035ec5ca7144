//! The parts of the result record that runtime facts and the cross-checks fill: types only, below the
//! logic that fills them (trace.rs, cross_check.rs, sync_check.rs), so record.rs uses no logic module and
//! no module imports one that imports it back. The logic modules re-export these under their old paths.

use serde::{Deserialize, Serialize};

// ----- runtime events (trace.rs) -----------------------------------------------------------------

/// What Dynamo did at a source line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    Break,
    Crash,
    Recompile,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Break => "break",
            EventKind::Crash => "crash",
            EventKind::Recompile => "recompile",
        }
    }
}

/// One runtime event; repeats at the same (kind, file, line, reason) are one event with a count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuntimeEvent {
    pub kind: EventKind,
    pub filename: Option<String>,
    pub line: Option<u32>,
    #[serde(default)]
    pub gb_code: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default = "one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

impl RuntimeEvent {
    /// Recompiles of one site differ only in the guard's value (`self.n == 0`, `== 1`): one event.
    pub(super) fn merge_key(&self) -> (EventKind, Option<&str>, Option<u32>, Option<&str>) {
        let reason = match self.kind {
            EventKind::Recompile => None,
            _ => self.reason.as_deref(),
        };
        (self.kind, self.filename.as_deref(), self.line, reason)
    }
}

// ----- static meets runtime (cross_check.rs) -----------------------------------------------------

/// What a finding says will happen under Dynamo, as far as Dynamo's own reports can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Claim {
    BreakOrCrash,
    Recompile,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventCheck {
    #[serde(flatten)]
    pub event: RuntimeEvent,
    /// Codes of the findings on the same statement, sorted; empty: no rule predicted it.
    pub predicted_by: Vec<String>,
    /// The event's file was not scanned (not in the trace map, gone from this machine, or outside the
    /// paths `scan --traced` was given): neither predicted nor unpredicted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_scanned: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FindingCheck {
    pub code: String,
    pub filename: String,
    pub line: u32,
    pub end_line: u32,
    pub message: String,
    /// What the finding claims Dynamo will do (null: nothing Dynamo reports, e.g. a sync stall).
    pub claims: Option<Claim>,
    /// true: the event happened on its statement; false: it claims an event that did not happen here;
    /// null: it claims nothing Dynamo reports and no event happened.
    pub confirmed: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CrossCheck {
    pub events: Vec<EventCheck>,
    pub findings: Vec<FindingCheck>,
    /// Why the scan could not run (the events are then all unpredicted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl CrossCheck {
    /// Events in scanned files: the ones a rule could have predicted.
    pub fn scanned_events(&self) -> usize {
        self.events.iter().filter(|e| !e.not_scanned).count()
    }
    pub fn predicted(&self) -> usize {
        self.events
            .iter()
            .filter(|e| !e.predicted_by.is_empty())
            .count()
    }
    pub fn checkable_findings(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.confirmed.is_some())
            .count()
    }
    pub fn confirmed(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.confirmed == Some(true))
            .count()
    }
}

// ----- syncs (sync_check.rs) ---------------------------------------------------------------------

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncCheck {
    pub sites: Vec<SyncSiteCheck>,
    pub findings: Vec<SyncFindingCheck>,
    /// Per side (`eager`, `compiled`): all syncs per step, and those at predicted sites.
    pub sides: Vec<SyncSideTotals>,
    /// Why the scan could not run (the sites are then all unpredicted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncSiteCheck {
    pub side: String,
    pub filename: Option<String>,
    pub line: Option<u64>,
    pub phase: Option<String>,
    pub code: String,
    pub per_step: f64,
    /// false: a sync inside torch with no Python line of its own (autograd's engine, an
    /// optimizer): no rule can point at it.
    pub scanned: bool,
    /// Codes of the findings on the same statement, sorted; empty: no rule predicted it.
    pub predicted_by: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncFindingCheck {
    pub code: String,
    pub filename: String,
    pub line: u32,
    pub end_line: u32,
    pub message: String,
    /// A sync happened on its statement in the profiled steps.
    pub confirmed: bool,
    /// Syncs per step measured on its statement (eager side; the compiled side when eager has none).
    pub per_step: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncSideTotals {
    pub side: String,
    /// All syncs per step the profile counted on this side.
    pub syncs_per_step: Option<f64>,
    /// Syncs per step at sites some finding predicted.
    pub predicted_per_step: f64,
    /// Syncs per step at the listed sites (the harness keeps the top ones).
    pub listed_per_step: f64,
}
