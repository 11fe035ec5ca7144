"""The check harness, run exactly as the Rust side runs it: `python harness.py run req.json res.json`
in a subprocess, on the corpus cases, under real torch (no mocks). Dynamo-level cases use the eager
backend; one clean case uses Inductor for timings and parity.

Expected lines come from `# LINE: name` markers in the corpus files, never hard-coded numbers.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HARNESS = REPO / "src" / "check" / "harness" / "harness.py"
CASES = REPO / "corpus" / "cases"
PYTHON = sys.executable
TIMEOUT_S = 240


def marker_line(file_name, name):
    """1-based line of `# LINE: name` in a corpus file."""
    for number, text in enumerate((CASES / file_name).read_text().splitlines(), start=1):
        if re.search(r"#\s*LINE:\s*%s\b" % re.escape(name), text):
            return number
    raise AssertionError("no '# LINE: %s' marker in %s" % (name, file_name))


def run_harness(tmp_path, file_name, factory, *, params=None, compile_overrides=None, measure=False,
                warmup=1, steps=3, python=PYTHON, python_flags=()):
    request = {
        "node_id": "%s::%s" % (file_name, factory),
        "file": str(CASES / file_name),
        "factory": factory,
        "params": params or {},
        "device": "cpu",
        "compile": dict({"backend": None, "dynamic": None, "mode": None, "fullgraph": None}, **(compile_overrides or {})),
        "warmup": warmup,
        "steps": steps,
        "measure": measure,
    }
    request_path = tmp_path / ("%s.request.json" % factory)
    result_path = tmp_path / ("%s.result.json" % factory)
    request_path.write_text(json.dumps(request))
    env = dict(os.environ, PYTHONUNBUFFERED="1", TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"))
    completed = subprocess.run(
        [python, *python_flags, "-X", "faulthandler", str(HARNESS), "run", str(request_path), str(result_path)],
        cwd=str(CASES), env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
    )
    assert result_path.exists(), "no result file; rc=%s stderr tail:\n%s" % (completed.returncode, completed.stderr[-3000:])
    result = json.loads(result_path.read_text())
    result["_returncode"] = completed.returncode
    result["_cache_dir"] = env["TORCHINDUCTOR_CACHE_DIR"]
    result["_stderr"] = completed.stderr
    return result


# Every case run the tests need, started together on a 2-worker pool when the first test asks (each run
# is a separate torch process, mostly waiting on imports and compiles), longest first.
PLANNED_RUNS = {
    "clean_mlp": dict(file_name="clean.py", factory="case_clean_mlp", measure=True, warmup=1, steps=3),
    "training": dict(file_name="clean.py", factory="case_clean_training", measure=True, warmup=1, steps=2),
    "bf16": dict(file_name="clean.py", factory="case_clean_bf16", measure=True, warmup=1, steps=2),
    "crash": dict(file_name="hazards.py", factory="case_shape_as_tensor_crash"),
    "item": dict(file_name="hazards.py", factory="case_item_break"),
    "attribute": dict(file_name="hazards.py", factory="case_attribute_recompile"),
    "attribute_limit": dict(file_name="hazards.py", factory="case_attribute_recompile_limit"),
    "multi_scale_static": dict(file_name="hazards.py", factory="case_multi_scale", compile_overrides={"dynamic": False}),
    "multi_scale_auto": dict(file_name="hazards.py", factory="case_multi_scale", compile_overrides={"dynamic": "none"}),
    "fullgraph": dict(file_name="hazards.py", factory="case_fullgraph_branch"),
    "build_small": dict(file_name="clean.py", factory="build", params={"size": "small"}),
    "build_bad": dict(file_name="clean.py", factory="build", params={"size": "huge"}),
    "raises": dict(file_name="hostile.py", factory="case_factory_raises"),
    "missing": dict(file_name="clean.py", factory="case_does_not_exist"),
    "segfault": dict(file_name="hostile.py", factory="case_segfault"),
    "chatty": dict(file_name="hostile.py", factory="case_prints_megabytes"),
    # Parity under Inductor (the RNG and numerics under test are Inductor's): longest runs first.
    "parity_dropout": dict(file_name="parity.py", factory="case_dropout_training", measure=True, warmup=1, steps=1),
    "parity_bf16": dict(file_name="parity.py", factory="case_bf16_training", measure=True, warmup=1, steps=1),
    "parity_wrapped": dict(file_name="parity.py", factory="case_wrapped_training", measure=True, warmup=1, steps=1),
    "parity_dtype_cache": dict(file_name="parity.py", factory="case_dtype_cache", measure=True, warmup=1, steps=1),
    "parity_regression": dict(file_name="parity.py", factory="case_compiled_path_differs", measure=True, warmup=1,
                              steps=1),
    # No float64 run possible (a layer hard-codes float32): the float32 reference (parity_reference.py).
    "reference_float32": dict(file_name="parity_reference.py", factory="case_float32_only_bf16_training",
                              measure=True, warmup=1, steps=1),
    "reference_float32_regression": dict(file_name="parity_reference.py",
                                         factory="case_float32_only_compiled_path_differs", measure=True, warmup=1,
                                         steps=1),
    "reference_eager_only": dict(file_name="parity_reference.py", factory="case_float32_only_fp32_training",
                                 measure=True, warmup=1, steps=1),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=2)
    futures = {}
    for name, arguments in PLANNED_RUNS.items():
        directory = tmp_path_factory.mktemp(name)
        futures[name] = pool.submit(run_harness, directory, **arguments)
    yield {name: future for name, future in futures.items()}
    pool.shutdown(wait=True)


def finished(runs, name):
    return runs[name].result(timeout=TIMEOUT_S * 2)


@pytest.fixture(scope="module")
def environment():
    completed = subprocess.run([PYTHON, str(HARNESS), "env"], capture_output=True, text=True, timeout=TIMEOUT_S)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(completed.stdout)


def torch_at_least(environment, major, minor):
    found = re.match(r"(\d+)\.(\d+)", environment["torch_version"] or "")
    return bool(found) and (int(found.group(1)), int(found.group(2))) >= (major, minor)


def test_env_prints_one_json_object_with_versions(environment):
    assert set(environment) >= {
        "python", "python_executable", "torch_version", "torch_error", "cuda_available", "cuda_version",
        "gpu_name", "driver_version", "platform",
    }
    assert environment["torch_version"], environment
    assert environment["torch_error"] is None
    assert isinstance(environment["cuda_available"], bool)
    assert environment["python"] == "%d.%d.%d" % sys.version_info[:3]


def test_without_torch_env_reports_null_and_run_writes_no_torch(tmp_path):
    # -S drops site-packages, so the venv's torch is not importable: the "torch missing" state, for real.
    completed = subprocess.run([PYTHON, "-S", str(HARNESS), "env"], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
    info = json.loads(completed.stdout)
    assert info["torch_version"] is None
    assert "torch" in info["torch_error"]
    result = run_harness(tmp_path, "clean.py", "case_clean_mlp", python_flags=("-S",))
    assert result["status"] == "no_torch"
    assert result["torch_version"] is None


def test_shape_as_tensor_crash_is_a_compile_error_at_the_stack_line(runs, environment):
    result = finished(runs, "crash")
    assert result["status"] == "compile_error", result["error"]
    error = result["error"]
    assert error["phase"] == "compile"
    assert "expected Tensor as element 0" in error["message"]
    if torch_at_least(environment, 2, 4):  # 2.2 wraps it: TorchRuntimeError "... but got tuple"
        assert error["type"] == "TypeError", error
        assert "but got torch.Size" in error["message"]
    assert error["filename"] == str(CASES / "hazards.py")
    assert error["line"] == marker_line("hazards.py", "stack")


def test_item_is_a_graph_break_at_the_item_line(runs, environment):
    result = finished(runs, "item")
    assert result["status"] == "ok", result["error"]
    assert result["graph_break_count"] >= 1
    assert result["graph_count"] >= 2
    breaks = [b for b in result["graph_breaks"] if b["line"] == marker_line("hazards.py", "item")]
    assert breaks, result["graph_breaks"]
    item_break = breaks[0]
    assert item_break["in_user_code"] is True
    assert item_break["filename"] == str(CASES / "hazards.py")
    assert "item" in item_break["reason"].lower()
    assert "\n" not in item_break["reason"]
    if torch_at_least(environment, 2, 11):  # graph-break codes verified on 2.11; absent on 2.4
        assert re.fullmatch(r"GB\d{4}", item_break["gb_code"] or ""), item_break
    assert result["recompiles"] == 0


def test_attribute_bumped_in_forward_recompiles_naming_the_attribute(runs, environment):
    result = finished(runs, "attribute")
    assert result["status"] == "ok", result["error"]
    assert result["graph_break_count"] == 0
    assert result["distinct_input_shapes"] == 1
    assert result["recompiles"] >= 1
    if torch_at_least(environment, 2, 11):
        # 5 identical inputs, every call recompiles (2.4 turns the int dynamic after 1-2 recompiles).
        assert result["recompiles"] == 4
    assert len(result["recompile_reasons"]) >= result["recompiles"]
    assert all("calls" in reason for reason in result["recompile_reasons"]), result["recompile_reasons"]
    assert result["cache_limit_hit"] is False


def test_attribute_recompiles_until_the_limit_then_falls_back(runs, environment):
    if not torch_at_least(environment, 2, 11):
        pytest.skip("older torch makes the int attribute dynamic before the limit")
    result = finished(runs, "attribute_limit")
    assert result["status"] == "ok", result["error"]
    assert result["cache_limit_hit"] is True
    assert result["recompiles"] == 7  # limit 8 = the first compile + 7 recompiles
    assert any("recompile_limit" in note or "cache_size_limit" in note for note in result["notes"])


@pytest.mark.parametrize("dynamic, expected", [("false", "distinct - 1"), ("none", "one")])
def test_multi_scale_recompiles_match_the_schedule(runs, dynamic, expected):
    result = finished(runs, "multi_scale_static" if dynamic == "false" else "multi_scale_auto")
    assert result["status"] == "ok", result["error"]
    # schedule: 32, 48, 32, 64 → 3 distinct shapes; the repeated 32 hits the cache.
    assert result["distinct_input_shapes"] == 3
    assert result["environment"]["compile_options"]["dynamic"] is (False if dynamic == "false" else None)
    if expected == "distinct - 1":
        assert result["recompiles"] == result["distinct_input_shapes"] - 1
    else:
        # automatic dynamic: one recompile marks the size dynamic, later sizes reuse that graph.
        assert result["recompiles"] == 1
    assert len(result["recompile_reasons"]) == result["recompiles"]
    assert all("size mismatch" in r or "stride mismatch" in r for r in result["recompile_reasons"])


def test_fullgraph_refuses_a_tensor_branch_at_the_branch_line(runs):
    result = finished(runs, "fullgraph")
    assert result["status"] == "compile_error"
    assert result["error"]["line"] == marker_line("hazards.py", "branch")
    assert result["error"]["phase"] == "compile"
    assert [b["line"] for b in result["graph_breaks"]] == [marker_line("hazards.py", "branch")]


def test_clean_mlp_with_inductor_has_timings_and_parity(runs):
    result = finished(runs, "clean_mlp")
    assert result["status"] == "ok", result["error"]
    assert result["graph_count"] == 1 and result["graph_break_count"] == 0
    assert result["graph_breaks"] == []
    assert result["recompiles"] == 0
    assert result["parity_ok"] is True
    assert result["max_abs_diff"] <= result["atol"]
    assert result["environment"]["compile_options"]["backend"] == "inductor"
    assert result["compile_cache"] == "cold"  # fresh TORCHINDUCTOR_CACHE_DIR per test
    assert result["compile_seconds"] > 0
    for key in ("eager_ms", "compiled_ms", "speedup"):
        assert result[key] > 0, key
    stats = result["compiled_ms_stats"]
    assert stats["n"] == 3 and stats["min"] <= stats["median"] <= stats["max"]
    assert result["eager_ms_stats"]["n"] == 3
    assert result["environment"]["timing"] == "perf_counter"
    assert result["peak_memory_eager_mb"] is None  # CPU
    assert Path(result["_cache_dir"]).is_dir()  # compiled into TORCHINDUCTOR_CACHE_DIR


def test_training_case_compares_gradients_and_metric(runs):
    result = finished(runs, "training")
    assert result["status"] == "ok", result["error"]
    assert result["parity_ok"] is True
    assert result["grad_max_abs_diff"] is not None and result["grad_max_abs_diff"] <= result["atol"]
    assert result["metric_eager"] == result["metric_compiled"]
    assert result["environment"]["compile_options"]["backend"] == "aot_eager"


def test_autocast_dtype_uses_bfloat16_tolerances(runs):
    result = finished(runs, "bf16")
    assert result["status"] == "ok", result["error"]
    assert (result["atol"], result["rtol"]) == (5e-2, 5e-2)
    assert result["parity_ok"] is True


def test_megabytes_of_user_stdout_do_not_disturb_the_result(runs):
    result = finished(runs, "chatty")
    assert result["status"] == "ok", result["error"]
    assert result["graph_count"] == 1


def test_params_reach_the_factory(runs):
    result = finished(runs, "build_small")
    assert result["status"] == "ok", result["error"]
    bad = finished(runs, "build_bad")
    assert bad["status"] == "factory_error"
    assert "huge" in bad["error"]["message"]


def test_factory_raising_is_a_factory_error_at_its_line(runs):
    result = finished(runs, "raises")
    assert result["status"] == "factory_error"
    assert result["error"]["type"] == "RuntimeError"
    assert result["error"]["phase"] == "factory"
    assert result["error"]["line"] == marker_line("hostile.py", "raises")
    assert result["torch_version"]


def test_missing_factory_is_a_factory_error(runs):
    result = finished(runs, "missing")
    assert result["status"] == "factory_error"
    assert "case_does_not_exist" in result["error"]["message"]


def test_segfault_leaves_the_checkpointed_result(runs):
    result = finished(runs, "segfault")
    assert result["_returncode"] < 0 or result["_returncode"] > 128  # killed by SIGSEGV
    assert result["status"] == "harness_error"  # Rust turns a signal death into "crash"
    assert result["error"]["phase"] == "factory"
    assert "Fatal Python error" in result["_stderr"]  # -X faulthandler dumped the stack


def test_bad_request_still_writes_a_result(tmp_path):
    request_path = tmp_path / "request.json"
    result_path = tmp_path / "result.json"
    request_path.write_text("{not json")
    completed = subprocess.run([PYTHON, str(HARNESS), "run", str(request_path), str(result_path)],
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 1
    result = json.loads(result_path.read_text())
    assert result["status"] == "harness_error"
    assert "bad request" in result["error"]["message"]


def assert_gradients_really_compared(result, count):
    grads = result["parity_grads"]
    assert grads["compared"] == count, grads
    assert result["grad_max_abs_diff"] is not None


def test_dropout_training_is_ok_with_comparable_rng(runs):
    """Inductor's RNG differs from eager's: without fallback_random this case was parity_fail."""
    result = finished(runs, "parity_dropout")
    assert result["status"] == "ok", (result["error"], result["notes"])
    assert result["step_uses_rng"] is True
    assert result["fallback_random"] is True
    assert result["parity_reference"] == "float64"
    assert_gradients_really_compared(result, 4)
    assert {entry["name"] for entry in result["parity_outputs"]} == {"output", "loss"}
    for entry in result["parity_outputs"]:
        assert entry["eager_error"] is not None and entry["compiled_error"] is not None, entry


def test_bf16_training_is_ok_against_the_float64_reference(runs):
    result = finished(runs, "parity_bf16")
    assert result["status"] == "ok", (result["error"], result["notes"])
    assert result["parity_reference"] == "float64"
    output = next(entry for entry in result["parity_outputs"] if entry["name"] == "output")
    assert output["dtype"] == "bfloat16"
    assert output["eager_error"] > 1e-4, "bf16 eager is itself far from float64"
    assert output["multiplier"] == 3.0
    assert_gradients_really_compared(result, 4)


def test_gradients_are_compared_through_a_wrapper_function(runs):
    """A model reached through `def step(x): return net(x)` used to compare no gradient and report
    grad_max_abs_diff 0.0 (two empty dicts compared): its parameters are found and compared now."""
    result = finished(runs, "parity_wrapped")
    assert result["status"] == "ok", (result["error"], result["notes"])
    assert_gradients_really_compared(result, 4)
    assert {entry["name"] for entry in result["parity_grads"]["worst"]} <= {
        "grad[a.weight]", "grad[a.bias]", "grad[b.weight]", "grad[b.bias]"}


def test_a_real_numerical_regression_still_fails(runs):
    result = finished(runs, "parity_regression")
    assert result["status"] == "parity_fail", result["notes"]
    assert result["parity_ok"] is False
    assert result["step_uses_rng"] is False and result["fallback_random"] is None
    output = next(entry for entry in result["parity_outputs"] if entry["name"] == "output")
    assert output["verdict"] == "worse" and output["ratio"] > 100, output
    assert result["parity_grads"]["failed"] == 4
    assert any(note.startswith("parity: output: compiled error vs float64") for note in result["notes"])


def test_a_model_that_cannot_run_in_float64_is_judged_against_float32(runs):
    """bf16 autocast, a layer that hard-codes float32, top-k query selection, an output the loss ignores: the
    float32 run (autocast off) is the reference; the selected boxes reorder under any numeric change, so eager
    itself is far from the reference per index and compiled is judged by the same ratio; the ignored head's
    gradients are None in eager and zeros from the compiled backward: equal."""
    result = finished(runs, "reference_float32")
    assert result["status"] == "ok", (result["error"], result["notes"])
    assert result["parity_reference"] == "float32"
    assert "Double" in result["parity_reference_failed"]["float64"], result["parity_reference_failed"]
    boxes = next(entry for entry in result["parity_outputs"] if entry["name"] == "output['boxes']")
    # Eager's own error is large (reordered queries) and eager and compiled differ per index: the ratio decides.
    assert boxes["eager_relative_error"] > 0.1, boxes
    assert boxes["verdict"] == "within_multiplier" and boxes["max_abs_diff"] > 0.1, boxes
    grads = result["parity_grads"]
    assert grads["none_vs_zero"] == 2 and grads["failed"] == 0, grads
    assert grads["compared"] == 6, grads


def test_a_real_regression_still_fails_against_the_float32_reference(runs):
    result = finished(runs, "reference_float32_regression")
    assert result["status"] == "parity_fail", result["notes"]
    assert result["parity_reference"] == "float32"
    worse = [entry["name"] for entry in result["parity_outputs"] if entry["verdict"] == "worse"]
    assert worse, result["parity_outputs"]
    assert any(note.startswith("parity: output['aux']: compiled error vs float32") for note in result["notes"])


def test_a_float32_model_without_float64_is_judged_by_allclose_against_eager(runs):
    """Eager ran in float32: a float32 run is no better reference, so eager vs compiled must be allclose
    (no cosine similarity against eager, which would hide a reordering or pass a rescaled output)."""
    result = finished(runs, "reference_eager_only")
    assert result["status"] == "ok", (result["error"], result["notes"])
    assert result["parity_reference"] == "eager"
    assert set(result["parity_reference_failed"]) == {"float64", "float32"}
    assert all(entry["verdict"] == "allclose" for entry in result["parity_outputs"]), result["parity_outputs"]


def test_float64_reference_leaves_no_state_behind(runs):
    """A module that caches a tensor attribute per input dtype (torchvision's AnchorGenerator) must not
    keep the float64 one: the compile would guard on it and recompile (seen on Faster R-CNN, H200)."""
    result = finished(runs, "parity_dtype_cache")
    assert result["status"] == "ok", (result["error"], result["notes"])
    assert result["parity_reference"] == "float64"
    assert result["recompiles"] == 0, result["recompile_reasons"]


# Older torch releases, each in its own venv (they cannot share the test venv). Named by environment
# variable, else looked for under .venvs/ (how to make one: docs/development.md, "Testing check on older torch").
OLDER_TORCH = {
    "2.5": ("GRAPHBREAK_TORCH25_PYTHON", REPO / ".venvs" / "torch25" / "bin" / "python"),
    "2.2": ("GRAPHBREAK_TORCH22_PYTHON", REPO / ".venvs" / "torch22" / "bin" / "python"),
}


def older_torch_python(release):
    variable, default = OLDER_TORCH[release]
    named = os.environ.get(variable)
    python = Path(named) if named else default
    if not python.exists():
        pytest.skip("no torch %s interpreter: set %s (docs/development.md: Testing check on older torch)" % (release, variable))
    return str(python)


@pytest.mark.parametrize("release", ["current", "2.5", "2.2"])
def test_error_after_a_graph_break_is_reported_at_its_statement(tmp_path, release):
    """A TypeError raised while Dynamo traces a forward, after an earlier graph break: on torch 2.5 the
    traceback names the `def` line (rewritten bytecode) and the graph-break log names the EARLIER break;
    the statement comes from Dynamo's original code for the rewritten frame."""
    python = PYTHON if release == "current" else older_torch_python(release)
    result = run_harness(tmp_path, "error_lines.py", "case_crash_after_break", python=python)
    if release != "current":
        assert result["torch_version"].startswith(release + "."), result["torch_version"]
    assert result["status"] == "compile_error", result["error"]
    assert result["error"]["line"] == marker_line("error_lines.py", "crash"), (result["error"], result["notes"])
    if release == "2.5":
        assert any("rewritten bytecode" in note for note in result["notes"]), result["notes"]
    # The earlier break is still reported, from the compile's own log (explain fails on this model).
    assert marker_line("error_lines.py", "early_break") in [b["line"] for b in result["graph_breaks"]]


@pytest.mark.parametrize("release", ["current", "2.5", "2.2"])
def test_a_data_dependent_branch_is_listed_with_its_line_on_every_torch(tmp_path, release):
    """torch 2.5 breaks at `if tensor:` without a graph_breaks record (explain says `generic_jump
    TensorVariable()`): the break count said 2 while 1 break was listed."""
    python = PYTHON if release == "current" else older_torch_python(release)
    result = run_harness(tmp_path, "jump_breaks.py", "case_branch_then_item", python=python)
    assert result["status"] == "ok", (result["error"], result["notes"])
    branch, item = marker_line("jump_breaks.py", "branch"), marker_line("jump_breaks.py", "item")
    assert sorted(entry["line"] for entry in result["graph_breaks"]) == [branch, item], result["graph_breaks"]
    assert result["graph_break_count"] == len(result["graph_breaks"]) == 2
    assert result["graph_count"] == 3
    events = sorted((event["kind"], event["line"]) for event in result["runtime_events"])
    assert events == [("break", branch), ("break", item)], result["runtime_events"]


@pytest.mark.parametrize("release", ["current", "2.5", "2.2"])
@pytest.mark.parametrize("factory,marker", [("case_crash_after_break", "crash"),
                                            ("case_crash_after_break_in_a_closure_frame", "closure_crash"),
                                            ("case_crash_behind_a_tracing_guard", "guarded_crash")])
def test_a_crash_in_a_library_frame_after_a_break_is_at_its_statement(tmp_path, release, factory, marker):
    """The model lives in an installed library (site-packages), the case file only builds it: the crash in
    the frame Dynamo resumed after a break is still located at its statement (on torch 2.5 the traceback
    names the frame's `def` line), in the result's error and in the crash event the cross-check reads."""
    python = PYTHON if release == "current" else older_torch_python(release)
    library = tmp_path / "site-packages"
    library.mkdir()
    module = library / "resumed_crash_model.py"
    module.write_text((CASES / "error_lines.py").read_text())
    # Outside the library's folder: the case file's directory counts as the user's own code.
    (tmp_path / "project").mkdir()
    case = tmp_path / "project" / "library_case.py"
    case.write_text("import sys\nsys.path.insert(0, %r)\nfrom resumed_crash_model import %s\n" % (str(library), factory))
    result = run_harness(tmp_path, case, factory, python=python)
    assert result["status"] == "compile_error", result["error"]
    crash_line = marker_line("error_lines.py", marker)
    assert (result["error"]["filename"], result["error"]["line"]) == (str(module), crash_line), (
        result["error"], result["notes"])
    crashes = [(event["filename"], event["line"]) for event in result["runtime_events"] if event["kind"] == "crash"]
    assert crashes == [(str(module), crash_line)], result["runtime_events"]
