"""The protocol's fixed parts: the result record (RESULT_TEMPLATE), limits and shared patterns, small utilities.

Every other module imports from here; this one imports nothing of the harness."""

import json
import math
import os
import re
import time


# When the interpreter got to the harness: minus Rust's GRAPHBREAK_SPAWNED_AT, the interpreter's start-up.
# (Set when this module loads, before any of the harness's logic runs.)
HARNESS_LOADED_AT = time.time()
# The harness's own files (the entry script and this package): never the user's code.
HARNESS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def is_harness_file(path):
    """True for an absolute path of one of the harness's own files."""
    return path.startswith(HARNESS_DIR + os.sep)


MESSAGE_LIMIT = 2000
# p90/p10 above this marks a timing as unstable (noise from other processes, throttling, too-short steps).
UNSTABLE_SPREAD = 2.0
TRACEBACK_TAIL_LIMIT = 4000
REASON_LIMIT = 600
GB_CODE_PATTERN = re.compile(r"\bgb(\d{4})\b", re.IGNORECASE)
LIMIT_HIT_PATTERN = re.compile(r"hit config\.(\w+) \((\d+)\)")
FROM_USER_CODE_FRAME = re.compile(r'File "([^"]+)", line (\d+)')

# Defaults when neither the case nor the CLI sets a tolerance: (atol, rtol) per output dtype.
# Compiled kernels reorder reductions and fuse ops, so these are looser than torch.testing's.
DEFAULT_TOLERANCES = {
    "float64": (1e-7, 1e-7),
    "float32": (1e-4, 1e-4),
    "float16": (1e-2, 1e-2),
    "bfloat16": (5e-2, 5e-2),
}


# --------------------------------------------------------------------------------------------
# small utilities


def truncate(text, limit):
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_line(text):
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return ""


def json_safe(value):
    """JSON has no NaN/inf (serde_json rejects them): non-finite floats become null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def write_json_atomically(path, payload):
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(json_safe(payload), handle, indent=1, default=str)
    os.replace(temporary, path)


def percentile(sorted_values, fraction):
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_values:
        return None
    position = (len(sorted_values) - 1) * fraction
    lower = int(math.floor(position))
    upper = min(lower + 1, len(sorted_values) - 1)
    weight = position - lower
    return sorted_values[lower] * (1 - weight) + sorted_values[upper] * weight


def timing_stats(samples_ms):
    if not samples_ms:
        return None
    ordered = sorted(samples_ms)
    return {
        "min": ordered[0],
        "p10": percentile(ordered, 0.10),
        "median": percentile(ordered, 0.50),
        "p90": percentile(ordered, 0.90),
        "max": ordered[-1],
        "n": len(ordered),
    }




# The result record: exactly the harness-written fields of CaseResult in src/check/record.rs (the one schema;
# a Rust test keeps the two equal). JSON, so that test reads it without Python.
RESULT_TEMPLATE = json.loads("""{
    "schema_version": 3,
    "case": null,
    "python": null,
    "python_executable": null,
    "torch_version": null,
    "device": null,
    "status": "harness_error",
    "graph_count": null,
    "graph_break_count": null,
    "graph_breaks": [],
    "recompiles": null,
    "recompile_reasons": [],
    "cache_limit_hit": false,
    "distinct_input_shapes": null,
    "error": null,
    "compile_seconds": null,
    "compile_cache": null,
    "eager_ms": null,
    "compiled_ms": null,
    "eager_ms_stats": null,
    "compiled_ms_stats": null,
    "speedup": null,
    "payback_steps": null,
    "max_abs_diff": null,
    "max_rel_diff": null,
    "parity_ok": null,
    "atol": null,
    "rtol": null,
    "grad_max_abs_diff": null,
    "metric_eager": null,
    "metric_compiled": null,
    "peak_memory_eager_mb": null,
    "peak_memory_compiled_mb": null,
    "environment": null,
    "notes": [],
    "timing_stable": null,
    "step_uses_rng": null,
    "fallback_random": null,
    "parity_reference": null,
    "parity_reference_failed": null,
    "parity_outputs": [],
    "parity_grads": null,
    "graph_facts_from": null,
    "phase_seconds": {},
    "profile": null,
    "traced": null,
    "runtime_events": [],
    "build_inputs": null
}""")
SCHEMA_VERSION = RESULT_TEMPLATE["schema_version"]
