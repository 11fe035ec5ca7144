"""The run's compile phase (a mixin of Run): compile, schedule, graph facts, profile, explain, recompiles."""

import os
import sys
import time

from .case import compile_kwargs
from .dynamo_facts import (
    DynamoLogRecorder,
    compile_cache_counts,
    compile_cache_verdict,
    describe_break,
    dynamo_graph_counts,
    inductor_cache_state,
    recompile_limit_name,
    recompile_reason,
    reset_dynamo,
    run_explain,
)
from .frames import innermost_user_traceback_frame, locate_error, statement_in_rewritten_frame
from .parity import reset_seeds, to_cpu
from .profiling import profile_side
from .records import LIMIT_HIT_PATTERN, first_line, timing_stats
from .steps import time_interleaved, timing_warmup
from .trace_map import TracedFiles, crash_location


class CompilePhases:
    """Run's compile-phase methods (run.py holds the rest of the run)."""

    def phase_compile(self, case, stepper, effective, schedule, measure, warmup, steps, eager):
        """Compiles, runs the schedule (recompiles), then parity and timings. Returns the compiled
        callable, or None after recording a compile_error / oom."""
        torch = self.torch
        result = self.result
        model, args, kwargs = case["model"], case["args"], case["kwargs"]
        cuda = stepper.device == "cuda"
        self.checkpoint("compile")
        # Counted as compile (not as graphbreak's): Dynamo's reset and the cache check import
        # torch._inductor (with Triton on a GPU: 2.7 s on the H200, measured between phases before this
        # was timed), which the first compiled call of any fresh process imports anyway.
        with self.timed("compile"):
            reset_dynamo(torch)
            result["compile_cache"] = inductor_cache_state(torch, effective.get("backend")) if measure else None
        limit_name, limit_value = recompile_limit_name(torch)
        phase = "compile"
        counted = None
        with DynamoLogRecorder(torch, ("recompiles", "graph_breaks")) as recorder, self.comparable_rng(
            effective
        ), self.trace_facts.recording(torch, recorder):
            try:
                with self.timed("compile"):
                    compiled = torch.compile(model, **compile_kwargs(effective))
                if effective.get("mode") == "reduce-overhead" and hasattr(
                    getattr(torch, "compiler", None), "cudagraph_mark_step_begin"
                ):
                    stepper.cudagraph_callable = compiled
                if cuda:
                    torch.cuda.reset_peak_memory_stats()
                first_args, first_kwargs = schedule[0]
                # The first compiled call is the compiled parity step when it runs the checked inputs from
                # the checked state and seeds (no second compiled step for parity). Not under CUDA graphs
                # (mode="reduce-overhead": the first call is their un-captured warm-up, later steps replay)
                # nor with a `metric` (computed on the device outputs of the parity step), nor when the
                # step draws random numbers: compiling may draw some too (autotuning inputs) between the
                # seed reset and the graph's own draws.
                first_call_is_parity = (
                    measure
                    and not result.get("step_uses_rng")
                    and first_args is args
                    and first_kwargs is kwargs
                    and effective.get("mode") != "reduce-overhead"
                    and case.get("metric") is None
                )
                if first_call_is_parity:
                    self.initial_state.restore()
                    reset_seeds(torch)
                stepper.synchronize()
                cache_counts_before = compile_cache_counts(torch)
                graph_counts_before = dynamo_graph_counts(torch)
                first_call = None
                with self.timed("compile"):
                    started = time.perf_counter()
                    outputs, loss = stepper.step(compiled, first_args, first_kwargs)
                    stepper.synchronize()
                    result["compile_seconds"] = time.perf_counter() - started
                if first_call_is_parity:
                    with self.timed("parity"):
                        grads = to_cpu(torch, stepper.grads(args, kwargs)) if stepper.training else {}
                        first_call = (to_cpu(torch, outputs), to_cpu(torch, loss), grads)
                        del grads
                del outputs, loss
                with self.timed("compile"):
                    self.wait_for_compile_workers()
                # The first call's graphs and breaks are what explain() would report for these inputs.
                self.record_graph_facts(recorder, graph_counts_before, dynamo_graph_counts(torch))
                if measure:
                    result["compile_cache"] = compile_cache_verdict(
                        cache_counts_before, compile_cache_counts(torch), result["compile_cache"]
                    )
                phase = "compiled_run"
                with self.timed("recompile_schedule"):
                    for call_args, call_kwargs in schedule[1:]:
                        stepper.step(compiled, call_args, call_kwargs)
                    stepper.synchronize()
                self.record_recompiles(recorder, limit_name, limit_value)
                counted = recorder.snapshot()
                if not measure:
                    return compiled
                phase = "parity"
                self.checkpoint("parity")
                with self.timed("parity"):
                    if first_call is not None:
                        outputs, loss, grads = first_call
                        first_call = None
                        self.compare(case, stepper, eager[0], eager[1], outputs, loss, args, kwargs, grads)
                    else:
                        self.initial_state.restore()
                        reset_seeds(torch)
                        outputs, loss = stepper.step(compiled, args, kwargs)
                        self.compare(case, stepper, eager[0], eager[1], outputs, loss, args, kwargs)
                    del outputs, loss
                phase = "compiled_run"
                self.checkpoint("compiled_run")
                with self.timed("timing"):
                    # The eager reference step and the compile's calls were each side's first warm-up.
                    eager_samples, compiled_samples = time_interleaved(
                        stepper, model, compiled, args, kwargs, timing_warmup(warmup), steps
                    )
                for side, samples in (("eager", eager_samples), ("compiled", compiled_samples)):
                    result[side + "_ms_stats"] = timing_stats(samples)
                    result[side + "_ms"] = result[side + "_ms_stats"]["median"] if samples else None
                self.check_timing_stability()
                if cuda:
                    result["peak_memory_compiled_mb"] = torch.cuda.max_memory_allocated() / 2**20
            except BaseException as error:  # noqa: BLE001
                if isinstance(error, KeyboardInterrupt):
                    raise
                if counted is None:
                    self.record_recompiles(recorder, limit_name, limit_value)
                self.trace_facts.compile_error = error
                # Now: the traceback's frames are read while they are as the compile left them (explain,
                # which runs later, fails the same way and changed what the chain led to on torch 2.5).
                self.trace_facts.compile_error_location = crash_location(torch, error)
                self.fail("compile_error", error, phase)
                self.refine_error_location(error, recorder)
                # Breaks Dynamo logged before the failure; explain (which runs next) replaces them if it can.
                logged = recorder.parsed_graph_breaks(self.classifier)
                if logged:
                    result["graph_breaks"] = logged
                    result["graph_break_count"] = len(logged)
                    result["graph_facts_from"] = "compile"
                return None
            later = recorder.snapshot()
            if later[0] > counted[0]:
                self.note("%d more recompile(s) during the parity/timing steps" % (later[0] - counted[0]))
            if later[1] > counted[1] and not result["cache_limit_hit"]:
                result["cache_limit_hit"] = True
                self.note("Dynamo hit %s=%s during the timing steps" % (limit_name, limit_value))
        return compiled

    def wait_for_compile_workers(self):
        """Inductor's compile-worker pool, once asked for, keeps starting in the background (a process per
        worker, each importing torch: 16 on the H200) after a compile served from a warm cache returned.
        Measured there: the parity step right after took 5.0-7.0 s instead of 0.4-0.5 s
        (TORCHINDUCTOR_COMPILE_THREADS=1 removed it). Its start-up is the compile's cost: wait for it
        here, in the compile phase, so graphbreak's own steps run on a quiet host. A pool nobody
        asked for is not started."""
        module = sys.modules.get("torch._inductor.async_compile")
        compiler = getattr(module, "AsyncCompile", None)
        ready = getattr(compiler, "_ready_future", None)
        if ready is None:
            return
        try:
            ready.result(timeout=60)
        except Exception as error:  # noqa: BLE001 - a pool that never gets ready is Inductor's business
            self.note("Inductor's compile workers were not ready within 60 s: %s" % type(error).__name__)

    def record_graph_facts(self, recorder, counts_before, counts_after):
        """graph_count / graph_break_count / graph_breaks from the compile itself: Dynamo's counters
        (unique_graphs, graph_break) over the first compiled call, and the graph_breaks log records it
        emitted. Leaves graph_facts_recorded False (→ explain) when this torch cannot answer that way."""
        result = self.result
        self.graph_facts_recorded = False
        if counts_before is None or counts_after is None or not recorder.logging_enabled:
            return
        graphs = counts_after[0] - counts_before[0]
        counted_breaks = counts_after[1] - counts_before[1]
        breaks = recorder.parsed_graph_breaks(self.classifier)
        if counted_breaks > 0 and not breaks:
            return  # breaks happened but their log records were not understood: let explain describe them
        result["graph_count"] = graphs
        result["graph_breaks"] = breaks
        # Dynamo logs a break once per source location; the counter counts every occurrence.
        result["graph_break_count"] = max(counted_breaks, len(breaks))
        result["graph_facts_from"] = "compile"
        self.graph_facts_recorded = True

    def phase_profile(self, case, stepper, compiled, steps):
        """--profile figures per side; a failure here is a note, never the case's status."""
        torch = self.torch
        self.checkpoint("profile")
        profile = {
            "device": stepper.device, "steps": steps, "unavailable": None, "eager": None, "compiled": None,
            "optimizer": case.get("optimizer") is not None and stepper.training,
        }
        if stepper.device != "cuda":
            profile["unavailable"] = (
                "kernels, GPU busy share and host-device syncs need CUDA (device %s): only the phase "
                "split was measured" % stepper.device
            )
        self.result["profile"] = profile
        trace_dir = self.request.get("profile_trace_dir")
        sides = [("eager", case["model"]), ("compiled", compiled)]
        for name, function in sides:
            if function is None:
                continue
            trace_path = os.path.join(trace_dir, name + ".trace.json") if trace_dir else None
            try:
                profile[name] = profile_side(
                    torch, stepper, function, case["args"], case["kwargs"], steps, self.classifier, trace_path
                )
            except BaseException as error:  # noqa: BLE001
                if isinstance(error, KeyboardInterrupt):
                    raise
                self.note("profile (%s) failed: %s: %s" % (name, type(error).__name__, first_line(error)))

    def phase_explain(self, case, stepper, failed_status):
        """Graph count and breaks from torch._dynamo.explain (forward only, Dynamo's capture backend)."""
        torch = self.torch
        result = self.result
        self.checkpoint("explain")
        reset_dynamo(torch)
        try:
            with DynamoLogRecorder(torch, ("graph_breaks",)) as break_log, self.trace_facts.recording(
                torch
            ), stepper.context():
                explained = run_explain(torch, case["model"], case["args"], case["kwargs"])
            result["graph_count"] = int(explained.graph_count)
            logged = break_log.graph_break_details()
            result["graph_breaks"] = [
                describe_break(reason, self.classifier, logged) for reason in (explained.break_reasons or [])
            ]
            # explain() reports graph_count - 1, which misses a break whose resumed code has no tensor
            # ops (no second graph); every break reason is a break, so count those.
            result["graph_break_count"] = max(int(explained.graph_break_count), len(result["graph_breaks"]))
            result["graph_facts_from"] = "explain"
        except BaseException as error:  # noqa: BLE001
            if isinstance(error, KeyboardInterrupt):
                raise
            what = "also failed" if failed_status is not None else "failed"
            self.note("torch._dynamo.explain %s: %s: %s" % (what, type(error).__name__, first_line(error)))
        reset_dynamo(torch)

    def refine_error_location(self, error, recorder):
        """Older torch (seen on 2.4 and 2.5) runs Dynamo-rewritten bytecode whose line table points at the
        `def` line. First choice: map the failing instruction back through Dynamo's original code (exact).
        Fallback: the graph_breaks log of the same compile names a line inside that function."""
        described = self.result["error"]
        classifier = self.classifier
        if described.get("filename") is None:
            # Raised in a library's code (site-packages: the model is a dependency of the case file), which
            # the case-file classifier skips: locate it there, as the trace map and events do.
            classifier = TracedFiles(self.torch)
            described["filename"], described["line"] = locate_error(error, classifier)
        frame = innermost_user_traceback_frame(error, classifier)
        if frame is None:
            return
        filename, line, first_line_number, last_line_number = frame
        if described.get("line") != line or line != first_line_number:
            return
        statement = statement_in_rewritten_frame(self.torch, error, classifier)
        if statement is not None:
            described["filename"], described["line"] = statement
            self.note("error line recovered from Dynamo's rewritten bytecode (the traceback points at the def line)")
            return
        inside = [
            location
            for location in recorder.graph_break_locations()
            if location[0] == os.path.abspath(filename) and first_line_number <= location[1] <= last_line_number
        ]
        if inside:
            described["filename"], described["line"] = inside[-1]
            self.note("error line taken from Dynamo's graph-break log (the traceback points at the def line)")

    def record_recompiles(self, recorder, limit_name, limit_value):
        result = self.result
        recompile_events = len(recorder.recompile_messages)
        limit_hits = len(recorder.limit_messages)
        if recorder.logging_enabled:
            # A recompile attempt that hits the limit is logged as 'Recompiling' but compiles nothing.
            result["recompiles"] = max(0, recompile_events - limit_hits)
            result["recompile_reasons"] = [recompile_reason(message) for message in recorder.recompile_messages]
        else:
            # Without the log artifact there is no per-recompile record (guard_failures lists one entry per
            # failing cache entry, not per recompile): unknown beats a wrong count.
            self.note("this torch has no 'recompiles' log artifact: recompiles not counted")
        if limit_hits:
            result["cache_limit_hit"] = True
            named = LIMIT_HIT_PATTERN.search(recorder.limit_messages[0])
            if named:  # the message names the limit that was hit (recompile_limit, accumulated_..., cache_size_limit)
                limit_name, limit_value = named.group(1), named.group(2)
            self.note("Dynamo hit %s=%s and fell back to eager for the rest of the calls" % (limit_name, limit_value))
