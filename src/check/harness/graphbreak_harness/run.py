"""One case's run (Run) and the one-shot command both entries end in (run_command)."""

import contextlib
import json
import os
import platform
import sys
import time
import traceback

from .case import describe_options, load_factory, map_tensors, merge_compile_options, normalize_case, shape_signature
from .frames import FrameClassifier, describe_error, is_out_of_memory
from .parity import ModuleState, draws_random_numbers, reset_seeds, rng_states, to_cpu
from .probe import environment_info, import_torch, initialize_device
from .records import (
    HARNESS_LOADED_AT,
    MESSAGE_LIMIT,
    RESULT_TEMPLATE,
    TRACEBACK_TAIL_LIMIT,
    UNSTABLE_SPREAD,
    first_line,
    timing_stats,
    truncate,
    write_json_atomically,
)
from .run_compile import CompilePhases
from .run_parity import ParityPhases
from .steps import Stepper, time_steps, timing_unstable
from .trace_map import BuildInputs, TraceFacts, TracedFiles


class Run(CompilePhases, ParityPhases):
    def __init__(self, request, result_path, served=None):
        self.request = request
        # Set when a fork server (`harness.py serve`) runs this case in a forked child: ServedCase.
        self.served = served
        self.result_path = result_path
        self.result = json.loads(json.dumps(RESULT_TEMPLATE))
        self.result["case"] = request.get("node_id")
        self.result["python"] = platform.python_version()
        self.result["python_executable"] = sys.executable
        self.torch = None
        self.classifier = FrameClassifier(None, request.get("file"))
        self.phase = "factory"
        self.graph_facts_recorded = False
        self.initial_state = None
        self.reference = None
        self.trace_facts = TraceFacts()
        self.build_inputs = BuildInputs()
        # Seconds outside timed blocks, by the phase that followed them (timed / finish_untimed).
        self.untimed = {}
        self.last_mark = time.perf_counter()

    # -- bookkeeping

    def checkpoint(self, phase):
        """Writes what is known so far, so a crash/timeout in `phase` still leaves the earlier facts.
        The file says harness_error until the run finishes (Rust replaces it with crash/timeout/oom
        when the process dies); a failure already recorded is written as is."""
        self.phase = phase
        try:
            self.trace_facts.attach(self.result, self.torch, self.classifier)
        except Exception:  # noqa: BLE001 - a checkpoint must be written; the final write reports the failure
            pass
        snapshot = dict(self.result)
        if snapshot["error"] is None:
            snapshot["status"] = "harness_error"
            snapshot["error"] = {
                "type": "Interrupted",
                "message": "the harness did not finish: the process died during phase %r" % phase,
                "filename": None, "line": None, "phase": phase, "traceback_tail": "",
            }
        write_json_atomically(self.result_path, snapshot)

    def write(self):
        write_json_atomically(self.result_path, self.result)

    def check_timing_stability(self):
        result = self.result
        unstable = [side for side in ("eager", "compiled") if timing_unstable(result[side + "_ms_stats"])]
        environment = result.get("environment") or {}
        load, cpus = environment.get("load_average"), environment.get("cpu_count")
        busy = environment.get("device") != "cuda" and load is not None and cpus and load > cpus
        result["timing_stable"] = not unstable and not busy
        if busy and not unstable:
            self.note(
                "busy machine (load average %s on %s CPUs): CPU timings, eager most of all (its %s "
                "intra-op threads compete with other processes), are not representative"
                % (load, cpus, environment.get("torch_threads"))
            )
        if unstable:
            self.note(
                "unstable timings (%s: p90/p10 > %.0fx; load average %s on %s CPUs, %s torch threads): "
                "the medians describe the machine's load more than the code; re-run on an idle machine"
                % (
                    ", ".join(unstable),
                    UNSTABLE_SPREAD,
                    environment.get("load_average"),
                    environment.get("cpu_count"),
                    environment.get("torch_threads"),
                )
            )

    def note(self, text):
        self.result["notes"].append(truncate(text, MESSAGE_LIMIT))

    # -- where the case's wall time goes (phase_seconds)

    @contextlib.contextmanager
    def timed(self, phase):
        """Adds the wall seconds of the block to result["phase_seconds"][phase] (also when it raises).
        The seconds between timed blocks (checkpoints, log handlers, bookkeeping) are kept per following
        phase in self.untimed, so no second of the run goes unexplained (finish_untimed)."""
        started = time.perf_counter()
        self.untimed[phase] = self.untimed.get(phase, 0.0) + max(0.0, started - self.last_mark)
        try:
            yield
        finally:
            ended = time.perf_counter()
            self.last_mark = ended
            seconds = self.result.setdefault("phase_seconds", {})
            seconds[phase] = round(seconds.get(phase, 0.0) + ended - started, 4)

    def finish_untimed(self):
        """phase_seconds["between_phases"]: the run's seconds outside every timed block; a note names
        where when it is more than half a second."""
        self.untimed["(end)"] = self.untimed.get("(end)", 0.0) + max(0.0, time.perf_counter() - self.last_mark)
        self.last_mark = time.perf_counter()
        total = sum(self.untimed.values())
        self.result.setdefault("phase_seconds", {})["between_phases"] = round(total, 4)
        if total > 0.5:
            worst = sorted(self.untimed.items(), key=lambda item: -item[1])[:4]
            self.note("%.2f s between timed phases (before %s)" % (
                total, ", ".join("%s %.2f s" % (phase, seconds) for phase, seconds in worst)))

    def record_interpreter_start(self):
        """Interpreter start-up until the harness module ran: Rust passes the spawn time (epoch seconds).
        In a fork server's child: `fork` (request sent, or the server ready if later → child running);
        the server's own start-up is reported once per server by graphbreak (`worker.start_seconds`)."""
        if self.served is not None:
            self.result.setdefault("phase_seconds", {})["fork"] = round(self.served.fork_seconds, 4)
            return
        spawned = os.environ.get("GRAPHBREAK_SPAWNED_AT")
        try:
            seconds = HARNESS_LOADED_AT - float(spawned)
        except (TypeError, ValueError):
            return
        if 0.0 <= seconds < 3600.0:
            self.result.setdefault("phase_seconds", {})["interpreter_start"] = round(seconds, 4)

    def fail(self, status, error, phase):
        if self.torch is not None and is_out_of_memory(self.torch, error):
            status = "oom"
        self.result["status"] = status
        self.result["error"] = describe_error(error, phase, self.classifier)

    # -- phases

    def execute(self):
        self.record_interpreter_start()
        self.checkpoint("factory")
        with self.timed("torch_import"):
            torch, torch_error = import_torch(with_dynamo=True)
        if torch is None:
            self.result["status"] = "no_torch"
            self.result["error"] = {
                "type": "ImportError", "message": torch_error, "filename": None, "line": None,
                "phase": "factory", "traceback_tail": "",
            }
            self.result["environment"] = environment_info(None, torch_error)
            return
        self.torch = torch
        self.classifier = FrameClassifier(torch, self.request.get("file"))
        with self.timed("device_init"):
            environment = environment_info(torch, None)
            initialize_device(torch, self.request.get("device"), environment)
        self.result["torch_version"] = environment["torch_version"]
        device = self.request.get("device") or "auto"
        if device == "auto":
            device = "cuda" if environment["cuda_available"] else "cpu"
        if device == "cuda" and not environment["cuda_available"]:
            self.result["status"] = "harness_error"
            self.result["error"] = {
                "type": "DeviceUnavailable", "message": "device 'cuda' requested but torch.cuda.is_available() is False",
                "filename": None, "line": None, "phase": "factory", "traceback_tail": "",
            }
            return
        self.result["device"] = device
        warmup = int(self.request.get("warmup", 3))
        steps = int(self.request.get("steps", 10))
        environment.pop("torch_error", None)
        environment.pop("cuda_available", None)
        environment.pop("python_executable", None)
        environment.update({
            "device": device, "compile_options": None, "warmup": warmup, "steps": steps,
            "timing": "cuda events" if device == "cuda" else "perf_counter",
        })
        self.result["environment"] = environment
        # Again, now with torch's import and the device's init timed: a process killed in the factory
        # (timeout, crash) then leaves only the factory's own seconds uncovered, which are the case's.
        self.checkpoint("factory")

        # factory
        build_clock = self.timed("model_build")
        build_clock.__enter__()
        self.build_inputs.start()
        try:
            # Same weights and inputs on every run of the case, so results compare across runs/versions.
            torch.manual_seed(0)
            factory = load_factory(self.request["file"], self.request["factory"])
            torch.manual_seed(0)
            made = factory(**(self.request.get("params") or {}))
            case = normalize_case(made)
        except BaseException as error:  # noqa: BLE001 - SystemExit in user code is a factory error too
            self.record_build_inputs()
            build_clock.__exit__(None, None, None)
            if isinstance(error, KeyboardInterrupt):
                raise
            self.fail("factory_error", error, "factory")
            return
        if case["unknown_keys"]:
            self.note("ignored unknown case keys: %s" % ", ".join(case["unknown_keys"]))
        unknown_compile_keys = sorted(set(case["compile"]) - {"backend", "dynamic", "mode", "fullgraph", "options"})
        if unknown_compile_keys:
            self.note("ignored unknown compile keys: %s" % ", ".join(unknown_compile_keys))
        effective = merge_compile_options(case["compile"], self.request.get("compile"))
        environment["compile_options"] = describe_options(effective)
        try:
            self.prepare(case, device)
            stepper = Stepper(torch, case, device)
            stepper.synchronize()
        except BaseException as error:  # noqa: BLE001
            if isinstance(error, KeyboardInterrupt):
                raise
            self.fail("factory_error", error, "factory")
            return
        finally:
            self.record_build_inputs()
            build_clock.__exit__(None, None, None)
        self.run_case(case, stepper, effective, warmup, steps)

    def record_build_inputs(self):
        self.build_inputs.stop()
        self.result["build_inputs"] = self.build_inputs.facts(TracedFiles(self.torch))

    def record_ran(self):
        """The eager reference step's calls join the build's (what the step runs is what timing runs)."""
        self.build_inputs.watch_calls(False)
        if self.result.get("build_inputs"):
            self.result["build_inputs"]["ran"] = self.build_inputs.ran_functions(TracedFiles(self.torch))

    def prepare(self, case, device):
        torch = self.torch
        model = case["model"]
        if isinstance(model, torch.nn.Module):
            model.to(device)
            if case.get("loss") is not None:
                model.train()
            else:
                model.eval()
        move = lambda value: map_tensors(torch, value, lambda tensor: tensor.to(device))  # noqa: E731
        case["args"] = move(case["args"])
        case["kwargs"] = move(case["kwargs"])
        if case.get("inputs"):
            case["inputs"] = [(move(args), move(kwargs)) for args, kwargs in case["inputs"]]

    def run_case(self, case, stepper, effective, warmup, steps):
        """eager reference (+ float64 reference) → compile over the shape schedule → parity → timings.

        Graph count and breaks come from the compile's own Dynamo counters and graph_breaks log (no
        second trace). torch._dynamo.explain runs only when those cannot answer (the compile failed, or
        this torch logs breaks in a form not parsed here), and then last: on older torch (seen on 2.4)
        Dynamo keeps automatic-dynamic state per code object across torch._dynamo.reset(), so an earlier
        explain() would change how the real compile specializes. Each phase checkpoints the result file,
        so a crash or timeout in a later phase keeps what an earlier one recorded."""
        torch = self.torch
        result = self.result
        measure = bool(self.request.get("measure", True))
        args, kwargs = case["args"], case["kwargs"]
        schedule = case.get("inputs") or [(args, kwargs), (args, kwargs)]
        result["distinct_input_shapes"] = len({shape_signature(torch, a, k) for a, k in schedule})

        eager = self.phase_eager(case, stepper, measure)
        if eager is None:
            return
        compiled = self.phase_compile(case, stepper, effective, schedule, measure, warmup, steps, eager)
        failed_status = None if compiled is not None else result["status"]
        if failed_status is not None and measure:
            self.time_eager_alone(case, stepper, warmup, steps)
        if measure and self.request.get("profile"):
            # Before explain: its dynamo reset would make the compiled side recompile.
            with self.timed("profile"):
                self.phase_profile(case, stepper, compiled, steps)
        if failed_status is not None or not self.graph_facts_recorded:
            with self.timed("explain"):
                self.phase_explain(case, stepper, failed_status)
        if failed_status is not None:
            result["status"] = failed_status
            return
        eager_ms, compiled_ms = result["eager_ms"], result["compiled_ms"]
        if eager_ms and compiled_ms:
            result["speedup"] = eager_ms / compiled_ms
            if eager_ms > compiled_ms and result["compile_seconds"] is not None:
                result["payback_steps"] = result["compile_seconds"] * 1000.0 / (eager_ms - compiled_ms)
        result["status"] = "parity_fail" if result["parity_ok"] is False else "ok"

    def phase_eager(self, case, stepper, measure):
        """The eager reference step (and the float64 one). Returns (reference outputs, reference grads),
        or None after recording an eager_error. Eager is timed later, interleaved with compiled."""
        torch = self.torch
        result = self.result
        model, args, kwargs = case["model"], case["args"], case["kwargs"]
        cuda = stepper.device == "cuda"
        self.checkpoint("eager")
        self.build_inputs.watch_calls(True)
        try:
            with self.timed("eager_step"):
                # Every checked run (eager, float64, compiled) starts from these parameter/buffer values.
                self.initial_state = ModuleState(torch, stepper.modules) if measure else None
                reset_seeds(torch)
                if cuda:
                    torch.cuda.reset_peak_memory_stats()
                before = rng_states(torch, stepper.device)
                outputs, loss = stepper.step(model, args, kwargs)
                stepper.synchronize()
                result["step_uses_rng"] = draws_random_numbers(torch, before, rng_states(torch, stepper.device))
                reference = to_cpu(torch, (outputs, loss))
                grads = to_cpu(torch, stepper.grads(args, kwargs)) if stepper.training else {}
                if case.get("metric") is not None and measure:
                    result["metric_eager"] = float(case["metric"](outputs))
                del outputs, loss
            self.record_ran()
            if measure:
                with self.timed("float64_reference"):
                    self.parity_reference(case, stepper)
            if cuda:
                result["peak_memory_eager_mb"] = torch.cuda.max_memory_allocated() / 2**20
        except BaseException as error:  # noqa: BLE001
            self.record_ran()
            if isinstance(error, KeyboardInterrupt):
                raise
            self.fail("eager_error", error, "eager")
            return None
        return reference, grads

    def time_eager_alone(self, case, stepper, warmup, steps):
        """Compile failed: eager ms/step is still worth reporting (what the case costs today)."""
        self.checkpoint("eager_timing")
        try:
            with self.timed("eager_timing"):
                samples = time_steps(stepper, case["model"], case["args"], case["kwargs"], warmup, steps)
            self.result["eager_ms_stats"] = timing_stats(samples)
            self.result["eager_ms"] = self.result["eager_ms_stats"]["median"] if samples else None
        except Exception as error:  # noqa: BLE001 - the compile error is the finding; this is extra
            self.note("eager timing after the compile error failed: %s: %s" % (type(error).__name__, first_line(error)))


def run_command(request_path, result_path, served=None):
    try:
        with open(request_path, encoding="utf-8") as handle:
            request = json.load(handle)
        if not isinstance(request, dict) or "file" not in request or "factory" not in request:
            raise ValueError("request must be an object with at least 'file' and 'factory'")
    except Exception as error:  # noqa: BLE001
        failure = json.loads(json.dumps(RESULT_TEMPLATE))
        failure.update({
            "python": platform.python_version(), "python_executable": sys.executable,
            "error": {"type": type(error).__name__, "message": "bad request %s: %s" % (request_path, error),
                      "filename": None, "line": None, "phase": "factory", "traceback_tail": traceback.format_exc()[-TRACEBACK_TAIL_LIMIT:]},
        })
        write_json_atomically(result_path, failure)
        return 1
    run = Run(request, result_path, served)
    try:
        run.execute()
    except BaseException as error:  # noqa: BLE001 - always leave a result behind
        run.result["status"] = "harness_error"
        run.result["error"] = {
            "type": type(error).__name__, "message": truncate(str(error), MESSAGE_LIMIT), "filename": None,
            "line": None, "phase": run.phase, "traceback_tail": traceback.format_exc()[-TRACEBACK_TAIL_LIMIT:],
        }
    try:
        run.trace_facts.attach(run.result, run.torch, run.classifier)
    except Exception as error:  # noqa: BLE001 - the trace map must never cost the case's own result
        run.note("trace map failed: %s: %s" % (type(error).__name__, first_line(error)))
    run.finish_untimed()
    run.write()
    return 0
