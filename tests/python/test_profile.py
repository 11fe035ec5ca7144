"""`check --profile` in the harness, run as the Rust side runs it, under real torch.

On CPU (CI): the phase split (forward, loss, backward, optimizer) and the clear "needs CUDA" record.
On CUDA (run on the GPU machine; skipped without one): syncs at the marked lines, and kernels per
step and GPU busy share checked against torch.profiler's own trace of the same steps.
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from graphbreak_harness.frames import FrameClassifier
from graphbreak_harness.profiling import SYNC_WARNING_TEXT, SyncRecorder

REPO = Path(__file__).resolve().parents[2]
HARNESS = REPO / "src" / "check" / "harness" / "harness.py"
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
        # Phases are means, step_ms the median step: equal up to the spread of the steps.
        assert figures["step_ms"] == pytest.approx(sum(phase["ms"] for phase in figures["phases"]), rel=0.5)
        assert sum(phase["share"] for phase in figures["phases"]) == pytest.approx(1.0)
        assert figures["kernels_per_step"] is None and figures["syncs_per_step"] is None


def test_timing_and_profile_measure_one_step_with_the_optimizer(tmp_path):
    """The case's optimizer sleeps 30 ms per step and its model takes microseconds: a timing pass that
    left the optimizer out (as it once did, while the profile pass stepped it) reads under 1 ms."""
    result = run_profile(tmp_path, "case_slow_optimizer", "cpu", steps=5)
    profile = result["profile"]
    for side in ("eager", "compiled"):
        timed = result[side + "_ms"]
        profiled = profile[side]["step_ms"]
        optimizer = [phase["ms"] for phase in profile[side]["phases"] if phase["name"] == "optimizer"]
        assert timed >= 30.0 and profiled >= 30.0 and optimizer and optimizer[0] >= 30.0, (side, timed, profile[side])
        assert abs(profiled - timed) / timed < 0.15, (side, timed, profiled)


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
    print("trace step ranges (ms):", " ".join("%.3f" % ((end - start) / 1000.0) for start, end in windows))
    return kernels / steps, device_us / wall_us


def load_case(factory):
    spec = importlib.util.spec_from_file_location("graphbreak_step_profile_cases", CASES / "step_profile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, factory)()


def standard_profiler_figures(factory, steps):
    """The case's eager step under torch.profiler as its documentation uses it, in this process:
    schedule + prof.step() (ProfilerStep#N ranges), then key_averages(). Returns kernels per step and
    summed device time over the ProfilerStep time."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile, schedule

    torch.manual_seed(0)
    case = load_case(factory)
    model = case["model"].cuda()
    args = [arg.cuda() for arg in case["args"]]
    training = case.get("loss") is not None
    model.train(training)
    autocast = getattr(torch, case["dtype"]) if case.get("dtype") else None

    def step():
        if training:
            for parameter in model.parameters():
                parameter.grad = None
        with torch.no_grad() if not training else torch.enable_grad():
            with torch.autocast("cuda", dtype=autocast, enabled=autocast is not None):
                outputs = model(*args)
                loss = case["loss"](outputs) if training else None
        if training:
            loss.backward()
            case["optimizer"].step()
        torch.cuda.synchronize()

    for _ in range(3):
        step()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=steps)) as profiler:
        for _ in range(2 + steps):
            step()
            profiler.step()
    averages = profiler.key_averages()
    device = [event for event in averages
              if event.device_type == DeviceType.CUDA and not event.is_user_annotation]
    kernels = sum(event.count for event in device if not event.key.startswith(("Memcpy", "Memset")))
    device_us = sum(event.self_device_time_total for event in device)
    step_us = sum(event.cpu_time_total for event in averages if event.key.startswith("ProfilerStep"))
    return kernels / steps, device_us / step_us


@needs_cuda
@pytest.mark.parametrize("factory", ["case_sync_sites", "case_gpu_bound"])
def test_kernels_and_busy_share_agree_with_torch_profiler(tmp_path, factory):
    steps = 5
    traces = tmp_path / "traces"
    traces.mkdir()
    result = run_profile(tmp_path, factory, "cuda", steps=steps, trace_dir=traces)
    for side in ("eager", "compiled"):
        figures = result["profile"][side]
        # The same steps: torch.profiler's exported trace of the harness's own profiled pass.
        kernels, busy_share = trace_figures(traces / ("%s.trace.json" % side), steps)
        print("%s %s: kernels/step %.1f vs trace %.1f; busy under the profiler %.3f vs trace %.3f; "
              "busy over the unprofiled step %.3f (step %.3f ms, profiled %.3f ms)" % (
                  factory, side, figures["kernels_per_step"], kernels, figures["gpu_busy_share_profiled"],
                  busy_share, figures["gpu_busy_share"], figures["step_ms"], figures["profiled_step_ms"]))
        assert figures["kernels_per_step"] == kernels
        assert figures["kernels_per_step"] > 0
        # Ours: union of device intervals over the step range; the trace's: summed durations.
        assert figures["gpu_busy_share_profiled"] == pytest.approx(busy_share, abs=0.02)
        # The profiler slows the host, not the GPU: the unprofiled step is no busier than... less idle.
        assert figures["gpu_busy_share"] >= figures["gpu_busy_share_profiled"] - 0.05
    # And torch.profiler used as documented (schedule, ProfilerStep, key_averages) on the same case.
    kernels, busy_share = standard_profiler_figures(factory, steps)
    eager = result["profile"]["eager"]
    print("%s eager: kernels/step %.1f vs key_averages %.1f; busy under the profiler %.3f vs key_averages %.3f"
          % (factory, eager["kernels_per_step"], kernels, eager["gpu_busy_share_profiled"], busy_share))
    assert eager["kernels_per_step"] == kernels
    assert eager["gpu_busy_share_profiled"] == pytest.approx(busy_share, abs=0.1)
    if factory == "case_gpu_bound":
        assert result["profile"]["eager"]["gpu_busy_share"] > 0.8
        assert result["profile"]["eager"]["host_bound"] is False
        assert result["profile"]["eager"]["syncs_per_step"] == 0


def test_sync_attribution_keeps_model_library_lines_and_skips_torch_and_stdlib():
    """A venv's platstdlib is the venv's own lib/pythonX.Y, which holds site-packages: on the H200 image
    that made every transformers line look like the stdlib, and DETR's loss syncs were blamed on the
    case's call of the loss instead of the lines inside it."""
    recorder = SyncRecorder(torch, FrameClassifier(torch, str(CASES / "step_profile.py")))
    assert not recorder.is_library_frame(pytest.__file__)  # a package in site-packages: a model library's place
    assert recorder.is_library_frame(torch.nn.functional.__file__)
    assert recorder.is_library_frame(os.__file__)
    assert recorder.is_library_frame(str(HARNESS))

    def synchronizing_call():
        # Stands where torch's C++ op returns to Python: torch emits the warning from its caller's frame.
        import warnings
        warnings.warn(recorder_text)

    recorder_text = SYNC_WARNING_TEXT
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("always", message=".*" + SYNC_WARNING_TEXT)
        recorder.forward_warning = warnings.showwarning
        warnings.showwarning = recorder.on_warning
        recorder.mark("loss")
        for _ in range(2):
            synchronizing_call()
    summary = recorder.summary(2)
    assert summary["syncs_per_step"] == 1.0
    (site,) = summary["sync_sites"]
    assert site["filename"] == __file__ and site["function"] == "synchronizing_call" and site["phase"] == "loss"
    assert "warnings.warn(recorder_text)" in site["code"]
