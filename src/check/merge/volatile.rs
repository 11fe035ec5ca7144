//! What `report diff` leaves out of a result: one list, shared with tests/check_scale.rs (which includes
//! this file by path), so the test's notion of "the same run" cannot drift from the command's.

/// Result fields that describe the machine, its load or the order cases ran in, not the code under test:
/// `report diff` never compares them. Everything else in a result is compared exactly.
pub const VOLATILE_FIELDS: &[&str] = &[
    "wall_seconds",
    "compile_seconds",
    // Cold or warm depends on which case filled the on-disk cache first.
    "compile_cache",
    "eager_ms",
    "compiled_ms",
    "eager_ms_stats",
    "compiled_ms_stats",
    "speedup",
    "payback_steps",
    "timing_stable",
    "peak_memory_eager_mb",
    "peak_memory_compiled_mb",
    "stdout_tail",
    "stderr_tail",
    // Where the wall time went (seconds per phase, graphbreak's own share).
    "phase_seconds",
    "graphbreak_seconds",
    "graphbreak_share",
    "process_start_seconds",
    "checking_seconds",
    "checking_share",
    // `--profile`: kernel counts, busy shares and phase splits measured on the machine.
    "profile",
    // Which GPU of the host ran it (`--gpus`).
    "gpu",
    // How its process was started (fork server or spawn; which case of the server it was).
    "worker",
    // Served from the result cache or run now (and under which key): the facts are the same either way.
    "cache",
    // What the build read, for the result cache's key: which functions ran includes ones the garbage
    // collector happened to call (`__del__`), and the paths are the machine's.
    "build_inputs",
];
/// `environment` fields of a result that are a reading of the machine's load.
pub const VOLATILE_ENVIRONMENT_FIELDS: &[&str] = &["load_average"];
/// Harness notes that describe the machine's load (their text carries the load reading).
pub const VOLATILE_NOTE_PREFIXES: &[&str] = &["busy machine (", "unstable timings ("];

/// Rounds every floating-point number of a result to 9 significant digits, in place. Parity errors
/// are sums over threads (CPU reductions are not bitwise reproducible): two runs of the same code
/// differ in the last bits of an RMSE, which is not a different fact.
pub fn round_measurements(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(number) if number.is_f64() => {
            if let Some(rounded) = number
                .as_f64()
                .and_then(|x| format!("{x:.8e}").parse::<f64>().ok())
                .and_then(serde_json::Number::from_f64)
            {
                *number = rounded;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(round_measurements),
        serde_json::Value::Object(map) => map.values_mut().for_each(round_measurements),
        _ => {}
    }
}
