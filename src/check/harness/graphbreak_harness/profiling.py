"""--profile: where the step time goes (phases, kernels, syncs)."""

import linecache
import os
import sys
import sysconfig
import time
import warnings

from .records import is_harness_file, percentile, truncate


# --------------------------------------------------------------------------------------------
# --profile: where the step time goes (request "profile": true; runs after parity and timing)
#
# Three passes of `steps` steps per side (eager, then compiled), each apart so one's overhead does not
# distort another's figures: (1) phases: CUDA events (CPU: perf_counter) at the start of forward, loss,
# backward and optimizer; (2) kernels: torch.profiler (Kineto/CUPTI) device activity inside each step's
# range, busy time divided by pass 1's unprofiled step; (3) syncs: torch.cuda.set_sync_debug_mode("warn"),
# each warning attributed to the Python line that caused it. Every pass runs the timing pass's step
# (Stepper.training_step: the case's `optimizer`, if any, steps there too, after every comparison, so
# parity is unaffected by changing weights).

PROFILE_STEP_RANGE = "graphbreak_profile_step"
SYNC_WARNING_TEXT = "called a synchronizing CUDA operation"
# GPU busy for less than this share of the step: the host (Python, launches, syncs) sets the pace.
HOST_BOUND_BUSY_SHARE = 0.5
SYNC_SITES_KEPT = 20
PROFILE_PHASES = ("forward", "loss", "backward", "optimizer")


def profiled_step(stepper, function, args, kwargs, mark):
    """The timing pass's step with `mark(phase)` at each phase start and `mark(None)` at the end."""
    stepper.mark_phase = mark
    try:
        stepper.training_step(function, args, kwargs)
    finally:
        stepper.mark_phase = None


def profile_phase_times(torch, stepper, function, args, kwargs, steps):
    """Median ms per step (the statistic of the timing pass, so one slow step does not move it) and mean
    ms per phase. CUDA: events on the current stream (the GPU timeline, idle gaps included, so phases
    add up to the step); CPU: perf_counter."""
    cuda = stepper.device == "cuda"
    totals = {}
    step_total = 0.0
    per_step = []
    for _ in range(steps):
        marks = []

        def mark(phase, marks=marks):
            if cuda:
                event = torch.cuda.Event(enable_timing=True)
                event.record()
                marks.append((phase, event))
            else:
                marks.append((phase, time.perf_counter()))

        profiled_step(stepper, function, args, kwargs, mark)
        if cuda:
            marks[-1][1].synchronize()
        this_step = 0.0
        for (phase, started), (_, ended) in zip(marks, marks[1:]):
            elapsed = float(started.elapsed_time(ended)) if cuda else (ended - started) * 1000.0
            totals[phase] = totals.get(phase, 0.0) + elapsed
            this_step += elapsed
        step_total += this_step
        per_step.append(this_step)
    step_ms = percentile(sorted(per_step), 0.5)
    phases = [
        {"name": name, "ms": totals[name] / steps, "share": (totals[name] / step_total) if step_total > 0 else None}
        for name in PROFILE_PHASES
        if name in totals
    ]
    return step_ms, phases


def is_device_copy(name):
    return name.startswith("Memcpy") or name.startswith("Memset")


def interval_union_length(intervals):
    """Total length covered by (start, end) intervals (kernels on several streams can overlap)."""
    covered = 0.0
    current_start = current_end = None
    for start, end in sorted(intervals):
        if current_end is None or start > current_end:
            if current_end is not None:
                covered += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    if current_end is not None:
        covered += current_end - current_start
    return covered


def recorded_events(torch, profiler):
    """(name, on CUDA, user annotation, start µs, end µs) of each event a finished torch.profiler
    session holds. The raw Kineto results when this torch exposes them (no event-tree building, which
    takes seconds on a long step), else the parsed FunctionEvents; one clock for host and device."""
    from torch.autograd import DeviceType  # noqa: PLC0415

    results = getattr(getattr(profiler, "profiler", None), "kineto_results", None)
    if results is not None and hasattr(results, "events"):
        for event in results.events():
            annotation = getattr(event, "is_user_annotation", None)
            yield (
                event.name(), event.device_type() == DeviceType.CUDA, bool(annotation and annotation()),
                event.start_ns() / 1000.0, event.end_ns() / 1000.0,
            )
        return
    for event in profiler.events():
        yield (
            event.name, event.device_type == DeviceType.CUDA, bool(getattr(event, "is_user_annotation", False)),
            event.time_range.start, event.time_range.end,
        )


def profile_kernels(torch, stepper, function, args, kwargs, steps, trace_path=None):
    """Kernels, copies and GPU busy time per step from torch.profiler's device activity (CUPTI).

    A step's window is its record_function range on the host clock (Kineto puts host and device
    events on one clock); the range ends after a synchronize, so every kernel the step launched ends
    inside it. Busy time = union of the device intervals in the window (kernels on several streams
    may overlap). The profiler slows the host (on the H200, a host-bound detection transformer's step
    went from 75 to 124 ms under it), so its own step is reported apart: `profile_side` divides the
    busy time by the unprofiled step."""
    from torch.profiler import ProfilerActivity, profile, record_function  # noqa: PLC0415

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as profiler:
        # One step outside any range, so not counted: a session's first step pays the profiler's own
        # start-up (on the H200 it read 80% busy for a GPU-bound step that key_averages, after
        # torch.profiler's documented wait/warmup schedule, put at 92%).
        profiled_step(stepper, function, args, kwargs, lambda phase: None)
        torch.cuda.synchronize()
        for _ in range(steps):
            with record_function(PROFILE_STEP_RANGE):
                profiled_step(stepper, function, args, kwargs, lambda phase: None)
                torch.cuda.synchronize()
    if trace_path:
        profiler.export_chrome_trace(trace_path)
    windows = []
    device_events = []
    for name, on_device, annotation, started, ended in recorded_events(torch, profiler):
        if name == PROFILE_STEP_RANGE:
            if not on_device:
                windows.append((started, ended))
        elif on_device and not annotation:
            device_events.append((started, ended, is_device_copy(name)))
    windows.sort()
    if len(windows) != steps:
        raise RuntimeError("the profiler recorded %d of %d step ranges" % (len(windows), steps))
    device_events.sort()
    kernels = copies = 0
    busy_us = 0.0
    for window_start, window_end in windows:
        inside = [event for event in device_events if window_start <= event[0] < window_end]
        copies += sum(1 for event in inside if event[2])
        kernels += len(inside) - sum(1 for event in inside if event[2])
        busy_us += interval_union_length([(event[0], min(event[1], window_end)) for event in inside])
    window_us = sum(window_end - window_start for window_start, window_end in windows)
    busy_ms = busy_us / 1000.0
    return {
        "kernels_per_step": kernels / steps,
        "copies_per_step": copies / steps,
        "gpu_busy_ms_per_step": busy_ms / steps,
        "profiled_step_ms": window_us / 1000.0 / steps,
        # What torch.profiler's own timeline shows: busy time over its (slowed) step.
        "gpu_busy_share_profiled": (busy_us / window_us) if window_us > 0 else None,
        # Busy time over kernels and copies per kernel: what "tiny kernels" means in the report.
        "mean_kernel_us": (busy_us / kernels) if kernels else None,
    }


class SyncRecorder:
    """Catches torch's sync-debug warnings ("called a synchronizing CUDA operation") and attributes each
    to the innermost frame outside torch, the harness and the stdlib (the user's or a model library's
    line); a sync with no such frame (inside autograd's backward, an optimizer) keeps its innermost
    torch frame, marked as outside user code."""

    def __init__(self, torch, classifier):
        self.torch = torch
        self.classifier = classifier
        self.torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
        paths = sysconfig.get_paths()
        self.stdlib_dirs = tuple(
            os.path.abspath(paths[key]) + os.sep for key in ("stdlib", "platstdlib") if paths.get(key)
        )
        self.package_dirs = tuple(
            os.path.abspath(paths[key]) + os.sep for key in ("purelib", "platlib") if paths.get(key)
        )
        self.phase = "forward"
        self.sites = {}
        self.total = 0
        self.forward_warning = warnings.showwarning

    def mark(self, phase):
        if phase is not None:
            self.phase = phase

    def is_library_frame(self, filename):
        if not filename or filename.startswith("<"):
            return True
        path = os.path.abspath(filename)
        # A venv that is a whole Python (seen on the H200 image: /opt/torch/.venv) keeps site-packages
        # under its stdlib directory: a model library there is not the stdlib.
        in_stdlib = path.startswith(self.stdlib_dirs) and not path.startswith(self.package_dirs) and (
            "site-packages" not in path.split(os.sep) and "dist-packages" not in path.split(os.sep)
        )
        return (
            is_harness_file(path)
            or path.startswith(self.torch_dir)
            or in_stdlib
            # Inductor's generated modules (torchinductor_<user>/.../*.py in the cache dir).
            or "torchinductor" in path
        )

    def attribute(self, frame):
        """(filename, line, function, context) for the frame chain starting at `frame` (innermost)."""
        fallback = None
        while frame is not None:
            code = frame.f_code
            filename = code.co_filename
            if not self.is_library_frame(filename):
                context = None
                if not self.classifier.is_user(filename):
                    # A model library's line: also name the user's line that led there.
                    outer = frame.f_back
                    while outer is not None:
                        if self.classifier.is_user(outer.f_code.co_filename) and not self.is_library_frame(outer.f_code.co_filename):
                            context = "%s:%d" % (outer.f_code.co_filename, outer.f_lineno)
                            break
                        outer = outer.f_back
                return filename, frame.f_lineno, code.co_name, context
            if fallback is None and filename.startswith(self.torch_dir):
                fallback = (filename, frame.f_lineno, code.co_name, None)
            frame = frame.f_back
        return fallback or (None, None, None, None)

    def on_warning(self, message, category, filename, lineno, file=None, line=None):
        if SYNC_WARNING_TEXT not in str(message):
            self.forward_warning(message, category, filename, lineno, file, line)
            return
        self.total += 1
        where = self.attribute(sys._getframe(1))
        key = where + (self.phase,)
        self.sites[key] = self.sites.get(key, 0) + 1

    def run(self, steps, step_function):
        torch = self.torch
        previous_mode = torch.cuda.get_sync_debug_mode()
        with warnings.catch_warnings():
            warnings.filterwarnings("always", message=".*" + SYNC_WARNING_TEXT)
            self.forward_warning = warnings.showwarning
            warnings.showwarning = self.on_warning
            torch.cuda.set_sync_debug_mode("warn")
            try:
                for _ in range(steps):
                    self.phase = "forward"
                    step_function(self.mark)
            finally:
                torch.cuda.set_sync_debug_mode(previous_mode)
        torch.cuda.synchronize()

    def summary(self, steps):
        ranked = sorted(self.sites.items(), key=lambda item: (-item[1], str(item[0])))
        sites = []
        for (filename, line, function, context, phase), count in ranked[:SYNC_SITES_KEPT]:
            code = linecache.getline(filename, line).strip() if filename and line else ""
            sites.append({
                "filename": filename, "line": line, "function": function, "code": truncate(code, 200),
                "phase": phase, "per_step": count / steps,
                "in_user_code": bool(filename) and self.classifier.is_user(filename), "via": context,
            })
        return {"syncs_per_step": self.total / steps, "sync_sites": sites,
                "sync_sites_total": len(self.sites)}


def profile_side(torch, stepper, function, args, kwargs, steps, classifier, trace_path=None):
    """Every --profile figure for one side (eager or compiled)."""
    # One uncounted step first: the case's optimizer steps for the first time here (AdamW allocates its
    # state then), which is no step of a running training loop.
    profiled_step(stepper, function, args, kwargs, lambda phase: None)
    stepper.synchronize()
    step_ms, phases = profile_phase_times(torch, stepper, function, args, kwargs, steps)
    side = {"step_ms": step_ms, "phases": phases, "kernels_per_step": None, "copies_per_step": None,
            "gpu_busy_ms_per_step": None, "profiled_step_ms": None, "gpu_busy_share": None,
            "gpu_busy_share_profiled": None, "mean_kernel_us": None, "syncs_per_step": None, "sync_sites": [],
            "sync_sites_total": None, "host_bound": None}
    if stepper.device != "cuda":
        return side
    side.update(profile_kernels(torch, stepper, function, args, kwargs, steps, trace_path))
    if step_ms > 0:
        # Kernel durations barely change under the profiler; the host does. Busy time over the
        # unprofiled step is the share a training loop sees (capped: the two passes are apart).
        side["gpu_busy_share"] = min(1.0, side["gpu_busy_ms_per_step"] / step_ms)
    recorder = SyncRecorder(torch, classifier)
    recorder.run(steps, lambda mark: profiled_step(stepper, function, args, kwargs, mark))
    side.update(recorder.summary(steps))
    if side["gpu_busy_share"] is not None:
        side["host_bound"] = side["gpu_busy_share"] < HOST_BOUND_BUSY_SHARE
    return side
