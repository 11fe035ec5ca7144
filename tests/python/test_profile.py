"""`check --profile` in the harness, run as the Rust side runs it, under real torch.

On CPU (CI): the phase split (forward, loss, backward, optimizer) and the clear "needs CUDA" record.
On CUDA (run on the GPU machine; skipped without one): syncs at the marked lines, and kernels per
step and GPU busy share checked against torch.profiler's own trace of the same steps.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[2]
HARNESS = REPO / "src" / "check" / "harness.py"
CASES = REPO / "corpus" / "cases"
TIMEOUT_S = 600

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="--profile's kernels and syncs need CUDA")


def marker_line(file_name, name):
    for number, text in enumerate((CASES / file_name).read_text().splitlines(), start=1):
        if "# LINE: %s" % name in text:
            return number
    raise AssertionError("no '# LINE: %s' marker in %s" % (name, file_name))


def run_profile(tmp_path, factory, device, backend="eager", steps=5, trace_dir=None):
    request = {
        "node_id": "step_profile.py::%s" % factory, "file": str(CASES / "step_profile.py"), "factory": factory,
        "params": {}, "device": device,
        "compile": {"backend": backend, "dynamic": None, "mode": None, "fullgraph": None},
        "warmup": 2, "steps": steps, "measure": True, "profile": True,
    }
    if trace_dir is not None:
        request["profile_trace_dir"] = str(trace_dir)
    request_path = tmp_path / ("%s.request.json" % factory)
    result_path = tmp_path / ("%s.result.json" % factory)
    request_path.write_text(json.dumps(request))
    env = dict(os.environ, PYTHONUNBUFFERED="1", TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"))
    completed = subprocess.run(
        [sys.executable, "-X", "faulthandler", str(HARNESS), "run", str(request_path), str(result_path)],
        cwd=str(CASES), env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
    )
    assert result_path.exists(), completed.stderr[-3000:]
    result = json.loads(result_path.read_text())
    assert result["status"] == "ok", (result["status"], result["error"], completed.stderr[-3000:])
    assert not [note for note in result["notes"] if note.startswith("profile")], result["notes"]
    return result


def test_cpu_profile_records_the_phase_split_and_says_the_rest_needs_cuda(tmp_path):
    result = run_profile(tmp_path, "case_sync_sites", "cpu")
    profile = result["profile"]
    assert "need CUDA" in profile["unavailable"]
    assert profile["optimizer"] is True
    for side in ("eager", "compiled"):
        figures = profile[side]
        assert [phase["name"] for phase in figures["phases"]] == ["forward", "loss", "backward", "optimizer"]
        assert all(phase["ms"] > 0 for phase in figures["phases"])
        assert sum(phase["ms"] for phase in figures["phases"]) == pytest.approx(figures["step_ms"])
        assert sum(phase["share"] for phase in figures["phases"]) == pytest.approx(1.0)
        assert figures["kernels_per_step"] is None and figures["syncs_per_step"] is None


@needs_cuda
def test_syncs_are_counted_per_step_at_the_lines_that_cause_them(tmp_path):
    result = run_profile(tmp_path, "case_sync_sites", "cuda", steps=4)
    forward_line = marker_line("step_profile.py", "forward_sync")
    loss_line = marker_line("step_profile.py", "loss_sync")
    for side in ("eager", "compiled"):
        figures = result["profile"][side]
        print(side, json.dumps({key: figures[key] for key in ("syncs_per_step", "kernels_per_step", "gpu_busy_share",
                                                               "phases", "sync_sites")}))
        sites = {(site["line"], site["phase"]): site for site in figures["sync_sites"]
                 if site["filename"] == str(CASES / "step_profile.py")}
        if side == "eager":
            assert sites[(forward_line, "forward")]["per_step"] == 1.0, figures["sync_sites"]
        else:
            # Compiled, the tensor `if` is a graph break: the branch runs in Dynamo's rewritten frame of
            # the same forward, whose line table may not name the statement itself.
            assert [site for (line, phase), site in sites.items() if phase == "forward"], figures["sync_sites"]
        assert sites[(loss_line, "loss")]["per_step"] == 1.0, figures["sync_sites"]
        assert sites[(loss_line, "loss")]["in_user_code"] is True
        assert "item()" in sites[(loss_line, "loss")]["code"]
        assert figures["syncs_per_step"] >= 2.0
        # A few tiny kernels and two syncs per step: the GPU waits on the host.
        assert figures["host_bound"] is True, figures


def trace_figures(trace_path, steps):
    """Kernels per step and GPU time / step wall, read from torch.profiler's exported Chrome trace:
    device events (kernels, copies, sets) inside each step's host range, durations summed."""
    events = json.loads(Path(trace_path).read_text())["traceEvents"]
    windows = sorted(
        (event["ts"], event["ts"] + event["dur"]) for event in events
        if event.get("name") == "graphbreak_profile_step" and event.get("cat") == "user_annotation"
    )
    assert len(windows) == steps
    device = [event for event in events if event.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    kernels = 0
    device_us = 0.0
    for start, end in windows:
        inside = [event for event in device if start <= event["ts"] < end]
        kernels += sum(1 for event in inside if event["cat"] == "kernel")
        device_us += sum(min(event["dur"], end - event["ts"]) for event in inside)
    wall_us = sum(end - start for start, end in windows)
    return kernels / steps, device_us / wall_us


@needs_cuda
@pytest.mark.parametrize("factory", ["case_sync_sites", "case_gpu_bound"])
def test_kernels_and_busy_share_agree_with_torch_profiler_on_the_same_steps(tmp_path, factory):
    steps = 5
    traces = tmp_path / "traces"
    traces.mkdir()
    result = run_profile(tmp_path, factory, "cuda", steps=steps, trace_dir=traces)
    for side in ("eager", "compiled"):
        figures = result["profile"][side]
        kernels, busy_share = trace_figures(traces / ("%s.trace.json" % side), steps)
        print("%s %s: kernels/step %.1f vs profiler %.1f; busy %.3f vs profiler %.3f" % (
            factory, side, figures["kernels_per_step"], kernels, figures["gpu_busy_share"], busy_share))
        assert figures["kernels_per_step"] == kernels
        assert figures["kernels_per_step"] > 0
        # Ours: union of device intervals / CUDA-event wall; the profiler's: summed durations / host range.
        assert figures["gpu_busy_share"] == pytest.approx(busy_share, abs=0.05)
    if factory == "case_gpu_bound":
        assert result["profile"]["eager"]["gpu_busy_share"] > 0.8
        assert result["profile"]["eager"]["host_bound"] is False
        assert result["profile"]["eager"]["syncs_per_step"] == 0
