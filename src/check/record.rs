//! The one result schema of `graphbreak check`: what the harness writes (result.json), what Rust adds, what the
//! JSONL stream, the JSON report and a baseline carry. Every field a torch (or an older/newer harness) may omit
//! is an `Option`; keys this build does not know are kept in `extra` and written back unchanged, so a result
//! written by another graphbreak version survives a round trip through this one.
//!
//! The harness's `RESULT_TEMPLATE` (src/check/harness/graphbreak_harness/records.py) lists exactly the
//! harness-written fields below; a unit test (`harness_template_matches_the_record`) keeps the two equal.
//! docs/check-protocol.md points here.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Bumped when a field changes meaning or type (adding an optional field does not bump it). Written into every
/// request, result and baseline; a reader accepts older versions and keeps unknown fields of newer ones.
/// 3: `parity_reference` gains `float32` (the fallback when float64 cannot run) and `eager` no longer
/// means cosine similarity against eager (allclose decides there); verdict `cosine` is retired.
pub const SCHEMA_VERSION: u32 = 3;

/// How a (case, interpreter) run ended. Graph breaks never change it: they are counted.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Status {
    Ok,
    ParityFail,
    CompileError,
    EagerError,
    FactoryError,
    Oom,
    NoTorch,
    #[default]
    HarnessError,
    /// Rust: the process died of a signal.
    Crash,
    /// Rust: `--timeout` passed.
    Timeout,
    /// A status this build does not know (a newer harness); kept verbatim.
    Other(String),
}

impl Status {
    pub fn as_str(&self) -> &str {
        match self {
            Status::Ok => "ok",
            Status::ParityFail => "parity_fail",
            Status::CompileError => "compile_error",
            Status::EagerError => "eager_error",
            Status::FactoryError => "factory_error",
            Status::Oom => "oom",
            Status::NoTorch => "no_torch",
            Status::HarnessError => "harness_error",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
            Status::Other(text) => text,
        }
    }

    pub fn is_ok(&self) -> bool {
        *self == Status::Ok
    }

    /// The process died before the harness could describe what happened.
    pub fn is_death(&self) -> bool {
        matches!(
            self,
            Status::Crash | Status::Timeout | Status::Oom | Status::HarnessError
        )
    }
}

impl From<String> for Status {
    fn from(text: String) -> Self {
        match text.as_str() {
            "ok" => Status::Ok,
            "parity_fail" => Status::ParityFail,
            "compile_error" => Status::CompileError,
            "eager_error" => Status::EagerError,
            "factory_error" => Status::FactoryError,
            "oom" => Status::Oom,
            "no_torch" => Status::NoTorch,
            "harness_error" => Status::HarnessError,
            "crash" => Status::Crash,
            "timeout" => Status::Timeout,
            _ => Status::Other(text),
        }
    }
}

impl From<&str> for Status {
    fn from(text: &str) -> Self {
        Status::from(text.to_owned())
    }
}

impl From<Status> for String {
    fn from(status: Status) -> Self {
        status.as_str().to_owned()
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One (case, interpreter) result. Field order is the JSON order.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CaseResult {
    /// Schema of this record ([`SCHEMA_VERSION`]); absent in results written before it existed (version 1).
    #[serde(default)]
    pub schema_version: Option<u32>,
    /// Node id: `file.py::factory[params]`.
    #[serde(default)]
    pub case: Option<String>,
    #[serde(default)]
    pub python: Option<String>,
    #[serde(default)]
    pub python_executable: Option<String>,
    #[serde(default)]
    pub torch_version: Option<String>,
    /// `cpu` | `cuda` (the device actually used; `auto` resolved).
    #[serde(default)]
    pub device: Option<String>,
    #[serde(default)]
    pub status: Status,
    /// Graphs Dynamo compiled (from explain, or the compile's own counters).
    #[serde(default)]
    pub graph_count: Option<u64>,
    #[serde(default)]
    pub graph_break_count: Option<u64>,
    #[serde(default)]
    pub graph_breaks: Vec<GraphBreak>,
    /// Recompilations over the shape schedule (0 = every input hit the cache); None = this torch cannot tell.
    #[serde(default)]
    pub recompiles: Option<u64>,
    #[serde(default)]
    pub recompile_reasons: Vec<String>,
    /// The recompile/cache-size limit was reached: Dynamo fell back to eager.
    #[serde(default)]
    pub cache_limit_hit: bool,
    #[serde(default)]
    pub distinct_input_shapes: Option<u64>,
    #[serde(default)]
    pub error: Option<ErrorInfo>,
    /// Wall time of the first compiled call (Dynamo + backend compile + the step itself).
    #[serde(default)]
    pub compile_seconds: Option<f64>,
    /// `cold` | `warm`: whether the first compile was served from the on-disk caches.
    #[serde(default)]
    pub compile_cache: Option<String>,
    /// Medians over the timed steps.
    #[serde(default)]
    pub eager_ms: Option<f64>,
    #[serde(default)]
    pub compiled_ms: Option<f64>,
    #[serde(default)]
    pub eager_ms_stats: Option<TimingStats>,
    #[serde(default)]
    pub compiled_ms_stats: Option<TimingStats>,
    /// eager_ms / compiled_ms.
    #[serde(default)]
    pub speedup: Option<f64>,
    /// compile_seconds*1000 / (eager_ms - compiled_ms); None when compiled is not faster.
    #[serde(default)]
    pub payback_steps: Option<f64>,
    /// Largest eager-vs-compiled difference over outputs and loss.
    #[serde(default)]
    pub max_abs_diff: Option<f64>,
    #[serde(default)]
    pub max_rel_diff: Option<f64>,
    /// None = parity not checked (--no-measure, or the case failed first).
    #[serde(default)]
    pub parity_ok: Option<bool>,
    #[serde(default)]
    pub atol: Option<f64>,
    #[serde(default)]
    pub rtol: Option<f64>,
    /// Training mode only; None when no gradient was compared.
    #[serde(default)]
    pub grad_max_abs_diff: Option<f64>,
    #[serde(default)]
    pub metric_eager: Option<f64>,
    #[serde(default)]
    pub metric_compiled: Option<f64>,
    /// CUDA only.
    #[serde(default)]
    pub peak_memory_eager_mb: Option<f64>,
    #[serde(default)]
    pub peak_memory_compiled_mb: Option<f64>,
    #[serde(default)]
    pub environment: Option<ResultEnvironment>,
    /// Harness remarks worth showing (explain failed, limits hit during timing, parity problems, ...).
    #[serde(default)]
    pub notes: Vec<String>,
    /// False when the timings describe the machine's load more than the code.
    #[serde(default)]
    pub timing_stable: Option<bool>,
    /// The checked step drew random numbers (dropout, rand): the generators moved during the eager step.
    #[serde(default)]
    pub step_uses_rng: Option<bool>,
    /// `torch._inductor.config.fallback_random` was set for the compile (so compiled draws eager's numbers).
    #[serde(default)]
    pub fallback_random: Option<bool>,
    /// What eager and compiled results were both judged against: `float64` (a float64 run of the same
    /// step), `float32` (the model cannot run in float64: a float32 run with autocast off, the model's
    /// fp16/bf16 weights upcast; same ratio rule), or `eager` (eager ran in float32 and float64 failed:
    /// no more precise reference, eager vs compiled must be allclose). Before schema 3, `eager` meant
    /// cosine similarity against eager.
    #[serde(default)]
    pub parity_reference: Option<String>,
    /// Why each more precise reference could not be used: `{"float64": "RuntimeError: expected scalar
    /// type Double but found Float"}`; null when the float64 run worked.
    #[serde(default)]
    pub parity_reference_failed: Option<BTreeMap<String, String>>,
    /// One entry per output tensor and the loss (the first 32).
    #[serde(default)]
    pub parity_outputs: Vec<ParityEntry>,
    /// Training mode: how the gradients compared.
    #[serde(default)]
    pub parity_grads: Option<GradParity>,
    /// Where graph_count/graph_breaks came from: `compile` (the compile's own Dynamo counters and
    /// graph_breaks log: no second trace) or `explain` (torch._dynamo.explain, when those cannot answer).
    #[serde(default)]
    pub graph_facts_from: Option<String>,
    /// Wall seconds per phase of the case's subprocess (harness side); Rust adds `process_other`.
    #[serde(default)]
    pub phase_seconds: Option<PhaseSeconds>,
    /// Rust: seconds of the subprocess not spent building the model or compiling it (interpreter, torch
    /// import, device init, reference runs, parity, timing, explain, exit): what graphbreak adds.
    #[serde(default)]
    pub graphbreak_seconds: Option<f64>,
    /// Rust: graphbreak_seconds / wall_seconds.
    #[serde(default)]
    pub graphbreak_share: Option<f64>,
    /// Rust: interpreter start + torch import (with torch._dynamo) + device init: what any fresh process
    /// that compiles this case pays, graphbreak's subprocess included.
    #[serde(default)]
    pub process_start_seconds: Option<f64>,
    /// Rust: graphbreak_seconds - process_start_seconds: the work graphbreak adds to get its facts (reference
    /// steps, parity, timing, explain when needed, exit).
    #[serde(default)]
    pub checking_seconds: Option<f64>,
    /// Rust: checking_seconds / wall_seconds.
    #[serde(default)]
    pub checking_share: Option<f64>,
    /// `--profile`: where the step time goes, per side (types and rendering in `profile.rs`).
    #[serde(default)]
    pub profile: Option<super::profile::Profile>,
    /// Every source line Dynamo traced (its `trace_source` log): absolute file → sorted lines, user files only
    /// (torch's own and the standard library left out). None: this torch has no such log.
    #[serde(default)]
    pub traced: Option<BTreeMap<String, Vec<u32>>>,
    /// Breaks, the compile crash and recompiles at their source lines; repeats merged with a count.
    #[serde(default)]
    pub runtime_events: Vec<super::record_parts::RuntimeEvent>,
    /// Files building the case read besides the case file and the trace map (imported modules, files
    /// opened for reading); the result cache hashes them (src/check/cache.rs). None: an older harness.
    #[serde(default)]
    pub build_inputs: Option<BuildInputs>,
    /// Rust: the static scan's findings on the traced lines vs the runtime events (src/check/cross_check.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_check: Option<super::record_parts::CrossCheck>,
    /// Rust: the sync family's findings vs the syncs `--profile` measured (src/check/sync_check.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_check: Option<super::record_parts::SyncCheck>,
    /// Rust: wall time of the whole subprocess.
    #[serde(default)]
    pub wall_seconds: Option<f64>,
    #[serde(default)]
    pub stdout_tail: Option<String>,
    #[serde(default)]
    pub stderr_tail: Option<String>,
    /// Rust, `--gpus` only: the GPU that ran this case (absent from sequential runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuAssignment>,
    /// Rust: how the case's process was started: forked by a per-lane fork server (torch imported once)
    /// or spawned (`harness.py run`), and why the fork server was not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<WorkerInfo>,
    /// Rust: the result cache's verdict on this case (src/check/cache.rs); absent with `--no-cache`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheMark>,
    /// Fields this build does not know (written by another harness/graphbreak version): kept as they are.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// What the harness saw the case's build read (its `BuildInputs`): absolute paths, user files only.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildInputs {
    /// Source files of the modules imported while building the case.
    #[serde(default)]
    pub imported: Vec<String>,
    /// Files opened for reading while building the case (configs, label maps, weights), imports excluded.
    #[serde(default)]
    pub opened: Vec<String>,
    /// The functions that ran while building the case and in its eager reference step: file → (first line,
    /// name) of each code object (`co_firstlineno`, `co_name`). None: not seen (another trace function).
    #[serde(default)]
    pub ran: Option<BTreeMap<String, Vec<(u32, String)>>>,
    /// False when the audit hook could not be installed or failed: the lists may miss a file.
    #[serde(default)]
    pub complete: bool,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// `cache` on a result: whether it came from the result cache, under which key, and from when.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CacheMark {
    /// True: this result was not run now; it is the stored result of an earlier run (timings included).
    #[serde(default)]
    pub hit: bool,
    /// The full key (recipe and the content of every file the case depended on); None: not stored.
    #[serde(default)]
    pub key: Option<String>,
    /// Hit: when the stored result was run (UTC, RFC 3339).
    #[serde(default)]
    pub from: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GraphBreak {
    /// First line of Dynamo's reason.
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub filename: Option<String>,
    #[serde(default)]
    pub line: Option<u64>,
    /// `GB0170` on torch versions that number their breaks.
    #[serde(default)]
    pub gb_code: Option<String>,
    #[serde(default)]
    pub in_user_code: Option<bool>,
    /// `file:line`, innermost last.
    #[serde(default)]
    pub frames: Vec<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorInfo {
    #[serde(rename = "type", default)]
    pub error_type: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub filename: Option<String>,
    #[serde(default)]
    pub line: Option<u64>,
    /// factory | eager | compile | compiled_run | parity | explain | ...
    #[serde(default)]
    pub phase: Option<String>,
    #[serde(default)]
    pub traceback_tail: Option<String>,
    /// Root of the `__cause__` chain (Dynamo wraps user-code errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause_message: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// Wall seconds per phase of one case's subprocess. Absent = the phase did not run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseSeconds {
    /// Process spawn until the harness module ran (Python start-up, site imports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpreter_start: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch_import: Option<f64>,
    /// Fork server: from graphbreak asking for the case to the forked child running it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork: Option<f64>,
    /// torch.cuda probing and the CUDA context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_init: Option<f64>,
    /// Importing the case file, the factory, moving to the device (the user's own code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_build: Option<f64>,
    /// The eager reference step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eager_step: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub float64_reference: Option<f64>,
    /// The first compiled call (= compile_seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile: Option<f64>,
    /// The rest of the shape schedule (recompiles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recompile_schedule: Option<f64>,
    /// The compiled parity step and the comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parity: Option<f64>,
    /// Interleaved eager and compiled warm-up + timed steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<f64>,
    /// Eager timed alone (only after a compile error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eager_timing: Option<f64>,
    /// torch._dynamo.explain (only when the compile's own logs cannot give the breaks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<f64>,
    /// Rust: wall seconds the phases above do not cover (harness exit, result writing, tails).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_other: Option<f64>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// Seconds and shares in a record are kept to three decimals (a millisecond, a tenth of a percent).
pub fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

impl PhaseSeconds {
    /// Sum of every phase the harness timed (known fields and unknown ones alike), without Rust's own.
    pub fn harness_total(&self) -> f64 {
        let known = [
            self.interpreter_start,
            self.torch_import,
            self.fork,
            self.device_init,
            self.model_build,
            self.eager_step,
            self.float64_reference,
            self.compile,
            self.recompile_schedule,
            self.parity,
            self.timing,
            self.eager_timing,
            self.explain,
        ];
        known.iter().flatten().sum::<f64>()
            + self.extra.values().filter_map(Value::as_f64).sum::<f64>()
    }

    /// A process that died (timeout, crash, OOM kill) in harness phase `phase` (its last checkpoint's
    /// name) had `seconds` of wall time no timed phase covers: they were spent in that phase, so they
    /// are charged to it — a case that hangs in its factory or compile is the case's own time, not
    /// graphbreak's. An unknown phase name keeps its seconds under that name.
    pub fn charge_in_flight(&mut self, phase: &str, seconds: f64) {
        let field = match phase {
            "factory" => &mut self.model_build,
            "eager" => &mut self.eager_step,
            "eager_timing" => &mut self.eager_timing,
            "compile" => &mut self.compile,
            "parity" => &mut self.parity,
            "compiled_run" => &mut self.timing,
            "explain" => &mut self.explain,
            other => {
                let known = self.extra.get(other).and_then(Value::as_f64).unwrap_or(0.0);
                self.extra
                    .insert(other.to_owned(), Value::from(round3(known + seconds)));
                return;
            }
        };
        *field = Some(round3(field.unwrap_or(0.0) + seconds));
    }

    /// The case's own work: building the model and compiling it for each input of the schedule.
    pub fn own_work(&self) -> f64 {
        [self.model_build, self.compile, self.recompile_schedule]
            .iter()
            .flatten()
            .sum()
    }

    /// Getting a process ready to run the case: interpreter, torch import, fork, device init.
    pub fn process_start(&self) -> f64 {
        [
            self.interpreter_start,
            self.torch_import,
            self.fork,
            self.device_init,
        ]
        .iter()
        .flatten()
        .sum()
    }
}

/// The verdict on one compared tensor. Errors are RMSE against the float64 reference.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ParityEntry {
    /// `output[0]`, `output['logits']`, `loss`, `grad[backbone.conv1.weight]`.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub dtype: Option<String>,
    #[serde(default)]
    pub numel: Option<u64>,
    /// Eager vs compiled, elementwise.
    #[serde(default)]
    pub max_abs_diff: Option<f64>,
    /// Eager's own error against float64 (for integer outputs: the fraction of differing elements).
    #[serde(default)]
    pub eager_error: Option<f64>,
    #[serde(default)]
    pub compiled_error: Option<f64>,
    /// eager_error / RMS of the reference: large (tens of %) when the outputs reorder under any numeric
    /// change (top-k selections); the ratio rule then decides, and the report says so.
    #[serde(default)]
    pub eager_relative_error: Option<f64>,
    /// compiled_error / eager_error.
    #[serde(default)]
    pub ratio: Option<f64>,
    /// How much worse than eager compiled may be (2, or 3 for fp16/bf16 and small tensors).
    #[serde(default)]
    pub multiplier: Option<f64>,
    /// Cosine similarity of compiled against the reference (informative; no verdict rests on it).
    #[serde(default)]
    pub cosine: Option<f64>,
    /// allclose | within_multiplier | worse | mismatch (`cosine`: results before schema 3)
    #[serde(default)]
    pub verdict: Option<String>,
    #[serde(default)]
    pub ok: Option<bool>,
    /// Why a `mismatch` (shape, keys, type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// Gradients are summarized (a model has hundreds of parameters): counts and the worst few.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GradParity {
    /// Gradient tensors compared; 0 means none were found (never reported as a perfect match).
    #[serde(default)]
    pub compared: Option<u64>,
    #[serde(default)]
    pub failed: Option<u64>,
    #[serde(default)]
    pub max_ratio: Option<f64>,
    #[serde(default)]
    pub max_abs_diff: Option<f64>,
    #[serde(default)]
    pub worst: Vec<ParityEntry>,
    /// Tensors with a gradient on one side only, all zeros there: counted equal to `None` (a parameter
    /// that reaches an output but not the loss: None in eager, zeros from a compiled backward).
    #[serde(default)]
    pub none_vs_zero: Option<u64>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimingStats {
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub p10: Option<f64>,
    #[serde(default)]
    pub median: Option<f64>,
    #[serde(default)]
    pub p90: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
    #[serde(default)]
    pub n: Option<u64>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The GPU a case was pinned to by `check --gpus` (from nvidia-smi; the index is the physical, PCI-order one).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuAssignment {
    #[serde(default)]
    pub index: Option<u32>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub uuid: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// How a case's process was started (src/check/worker.rs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkerInfo {
    /// `fork_server` (forked from a server that imported torch once) or `spawn` (a fresh interpreter).
    #[serde(default)]
    pub mode: Option<String>,
    /// Fork server: this case was the n-th it served.
    #[serde(default)]
    pub served: Option<u32>,
    /// Fork server: its start-up (spawn until ready: interpreter, torch import, the forked-CUDA check),
    /// paid once per interpreter and lane and in no case's `wall_seconds`; the run's `cost` adds it once.
    /// Spawn: what a failed attempt to start a server cost (on the lane's first case only).
    #[serde(default)]
    pub start_seconds: Option<f64>,
    /// Fork server: native threads alive in it when it started forking (NumPy's OpenBLAS pool).
    #[serde(default)]
    pub native_threads: Option<u64>,
    /// Spawn: why not a fork server (GRAPHBREAK_WORKER=spawn, not Linux, a Python thread alive after
    /// importing torch, the server died...).
    #[serde(default)]
    pub fallback: Option<String>,
    /// Spawn: this case was running in a forked child when its fork server was lost (how: it died, its
    /// output closed, it did not start the case); the result is the case's re-run in a fresh interpreter.
    /// Only on that case; the lane's later cases carry the loss in `fallback`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_lost: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The environment a result was measured in (harness side).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultEnvironment {
    #[serde(default)]
    pub python: Option<String>,
    #[serde(default)]
    pub torch_version: Option<String>,
    #[serde(default)]
    pub cuda_version: Option<String>,
    #[serde(default)]
    pub gpu_name: Option<String>,
    #[serde(default)]
    pub driver_version: Option<String>,
    #[serde(default)]
    pub device: Option<String>,
    #[serde(default)]
    pub platform: Option<String>,
    /// Effective torch.compile options (case's own merged with the CLI's).
    #[serde(default)]
    pub compile_options: Option<Value>,
    #[serde(default)]
    pub warmup: Option<u64>,
    #[serde(default)]
    pub steps: Option<u64>,
    /// `cuda events` | `perf_counter`.
    #[serde(default)]
    pub timing: Option<String>,
    #[serde(default)]
    pub cpu_count: Option<u64>,
    #[serde(default)]
    pub torch_threads: Option<u64>,
    #[serde(default)]
    pub load_average: Option<f64>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// What `harness.py env` prints about an interpreter (plus `python_arg`, the path as the user named it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbeEnvironment {
    #[serde(default)]
    pub python: Option<String>,
    #[serde(default)]
    pub python_executable: Option<String>,
    #[serde(default)]
    pub torch_version: Option<String>,
    #[serde(default)]
    pub torch_error: Option<String>,
    #[serde(default)]
    pub cuda_available: bool,
    #[serde(default)]
    pub cuda_version: Option<String>,
    #[serde(default)]
    pub gpu_name: Option<String>,
    #[serde(default)]
    pub driver_version: Option<String>,
    #[serde(default)]
    pub platform: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python_arg: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// request.json: what Rust asks the harness to run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseRequest {
    pub schema_version: u32,
    pub node_id: String,
    pub file: String,
    pub factory: String,
    pub params: serde_json::Map<String, Value>,
    /// auto | cpu | cuda
    pub device: String,
    pub compile: CompileRequest,
    pub warmup: u32,
    pub steps: u32,
    /// false = Dynamo facts only (no timings, no parity).
    pub measure: bool,
    /// `--profile`: measure where the step time goes (the result's `profile`).
    #[serde(default)]
    pub profile: bool,
}

/// CLI overrides over the case's own `compile` dict; None = the case's value, else the default.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompileRequest {
    pub backend: Option<String>,
    /// true | false | "none" (explicit dynamic=None) | null
    pub dynamic: Value,
    pub mode: Option<String>,
    pub fullgraph: Option<bool>,
}

/// A JSON report as `--baseline` reads it: only `results` is required.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ReportDocument {
    #[serde(default)]
    pub schema_version: Option<u32>,
    pub results: Vec<CaseResult>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fields Rust adds after the harness finished; the harness's template does not carry them.
    const RUST_ONLY_FIELDS: &[&str] = &[
        "wall_seconds",
        "stdout_tail",
        "stderr_tail",
        "graphbreak_seconds",
        "graphbreak_share",
        "process_start_seconds",
        "checking_seconds",
        "checking_share",
        "gpu",
        "worker",
        "cross_check",
        "cache",
        "sync_check",
    ];

    /// The harness's `RESULT_TEMPLATE = json.loads("""...""")` block, parsed.
    fn harness_template() -> serde_json::Map<String, Value> {
        let source = include_str!("harness/graphbreak_harness/records.py");
        let start_marker = "RESULT_TEMPLATE = json.loads(\"\"\"";
        let start = source
            .find(start_marker)
            .expect("records.py defines RESULT_TEMPLATE")
            + start_marker.len();
        let end = start
            + source[start..]
                .find("\"\"\")")
                .expect("RESULT_TEMPLATE block ends");
        serde_json::from_str(&source[start..end]).expect("RESULT_TEMPLATE is a JSON object")
    }

    #[test]
    fn harness_template_matches_the_record() {
        let template = harness_template();
        let record = serde_json::to_value(CaseResult::default()).unwrap();
        let record_keys: Vec<&String> = record
            .as_object()
            .unwrap()
            .keys()
            .filter(|key| !RUST_ONLY_FIELDS.contains(&key.as_str()))
            .collect();
        let template_keys: Vec<&String> = template.keys().collect();
        let mut sorted_record = record_keys.clone();
        sorted_record.sort();
        let mut sorted_template = template_keys.clone();
        sorted_template.sort();
        assert_eq!(
            sorted_template, sorted_record,
            "the harness's RESULT_TEMPLATE and record.rs CaseResult list different fields"
        );
        // Same types: the template's values deserialize into the record with nothing left over.
        let parsed: CaseResult = serde_json::from_value(Value::Object(template.clone())).unwrap();
        assert!(parsed.extra.is_empty(), "{:?}", parsed.extra);
        assert_eq!(
            parsed.schema_version,
            Some(SCHEMA_VERSION),
            "harness and Rust agree on the schema version"
        );
    }

    /// Every `result["key"] = ...` the harness writes is a template (= record) field: a field added in the
    /// harness alone would travel in `extra`, untyped.
    #[test]
    fn harness_writes_only_template_fields() {
        let template = harness_template();
        let source = super::super::harness_files::contents();
        let mut unknown = Vec::new();
        for (index, _) in source.match_indices("result[\"") {
            let rest = &source[index + "result[\"".len()..];
            let Some(end) = rest.find('"') else { continue };
            let key = &rest[..end];
            let after = rest[end + 1..].trim_start_matches(']').trim_start();
            let assigned = after.starts_with('=') && !after.starts_with("==");
            if assigned && !template.contains_key(key) && !unknown.contains(&key) {
                unknown.push(key);
            }
        }
        assert!(
            unknown.is_empty(),
            "the harness writes fields missing from RESULT_TEMPLATE: {unknown:?}"
        );
    }

    #[test]
    fn unknown_fields_and_statuses_survive_a_round_trip() {
        let text = r#"{"case": "c.py::x", "status": "brand_new", "future_field": {"lines": 3},
                       "graph_breaks": [{"reason": "r", "line": 4, "future": 1}], "eager_ms": 2}"#;
        let parsed: CaseResult = serde_json::from_str(text).unwrap();
        assert_eq!(parsed.status, Status::Other("brand_new".into()));
        assert_eq!(parsed.eager_ms, Some(2.0));
        assert_eq!(parsed.schema_version, None, "older results have none");
        let written = serde_json::to_value(&parsed).unwrap();
        assert_eq!(written["status"], "brand_new");
        assert_eq!(written["future_field"]["lines"], 3);
        assert_eq!(written["graph_breaks"][0]["future"], 1);
    }
}
