"""graphbreak check harness: runs one case under real torch and writes what happened as JSON.

Embedded in the graphbreak binary and run as a subprocess, one per (case, interpreter):

    python -X faulthandler harness.py run request.json result.json
    python harness.py env

The request/result contract is shared with the Rust side (src/check/*.rs): keep both in step.
Constraints: one file, stdlib + torch only, Python 3.9+, torch 2.2 through current. Every torch API that
moved between versions is feature-detected (hasattr / try), never assumed from a version number.
"""

import ast
import contextlib
import dis
import importlib.util
import json
import linecache
import logging
import math
import os
import platform
import re
import subprocess
import sys
import sysconfig
import time
import traceback
import types
import warnings

# When the interpreter got to the harness: minus Rust's GRAPHBREAK_SPAWNED_AT, the interpreter's start-up.
HARNESS_LOADED_AT = time.time()
HARNESS_FILE = os.path.abspath(__file__)
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


# --------------------------------------------------------------------------------------------
# environment probe


def nvidia_driver_version():
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8") as handle:
            # "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
            match = re.search(r"Kernel Module\b.*?\s(\d+\.\d+(?:\.\d+)?)\s", handle.read())
            if match:
                return match.group(1)
    except OSError:
        pass
    try:
        completed = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if completed.returncode == 0 and completed.stdout.strip():
            return completed.stdout.strip().splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return None


def import_torch(with_dynamo=False):
    """Returns (torch module or None, error string or None). Import chatter goes to stderr.
    `with_dynamo`: also import torch._dynamo (seconds of imports that torch itself defers to the first
    torch.compile / torch._dynamo use: counted as torch_import, not as compile)."""
    try:
        with contextlib.redirect_stdout(sys.stderr):
            import torch  # noqa: PLC0415 - torch may be missing; that is a reportable state
        if with_dynamo:
            try:
                with contextlib.redirect_stdout(sys.stderr):
                    import torch._dynamo  # noqa: PLC0415, F401
            except Exception:  # noqa: BLE001 - a torch without Dynamo fails later, at compile, with its error
                pass
        return torch, None
    except BaseException as error:  # noqa: BLE001 - a broken install can raise anything
        return None, "%s: %s" % (type(error).__name__, truncate(error, MESSAGE_LIMIT))


def environment_info(torch, torch_error):
    info = {
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "torch_version": None,
        "torch_error": torch_error,
        "cuda_available": False,
        "cuda_version": None,
        "gpu_name": None,
        "driver_version": None,
        "platform": platform.platform(),
    }
    if torch is None:
        return info
    info["torch_version"] = str(torch.__version__)
    # What CPU timings depend on: a busy machine or oversubscribed threads distort eager steps.
    info["cpu_count"] = os.cpu_count()
    try:
        info["torch_threads"] = torch.get_num_threads()
        info["load_average"] = round(os.getloadavg()[0], 2)
    except (AttributeError, OSError, RuntimeError):
        info["load_average"] = None
    try:
        info["cuda_version"] = getattr(torch.version, "cuda", None)
        info["cuda_available"] = bool(torch.cuda.is_available())
        if info["cuda_available"]:
            info["gpu_name"] = torch.cuda.get_device_name(0)
            info["driver_version"] = nvidia_driver_version()
    except Exception as error:  # noqa: BLE001 - a broken CUDA setup is a fact, not a crash
        info["torch_error"] = "CUDA probe failed: %s: %s" % (type(error).__name__, truncate(error, 500))
    return info


def initialize_device(torch, requested, environment):
    """Creates the CUDA context now, so its seconds count as device_init rather than as the first step's."""
    if requested == "cpu" or not environment.get("cuda_available"):
        return
    try:
        torch.zeros(1, device="cuda")
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001 - a broken CUDA setup surfaces in the case's own steps
        pass


def env_command():
    torch, torch_error = import_torch()
    info = environment_info(torch, torch_error)
    if torch is not None:
        # The build, not only the version string: graphbreak's result cache keys on it (src/check/cache.rs).
        info["torch_git_version"] = getattr(torch.version, "git_version", None)
        info["torch_file"] = os.path.abspath(torch.__file__)
    print(json.dumps(json_safe(info)))
    return 0


# --------------------------------------------------------------------------------------------
# attributing frames to user code


class FrameClassifier:
    """Tells user frames from torch / third-party / stdlib / harness frames."""

    def __init__(self, torch, case_file):
        prefixes = []
        if torch is not None:
            prefixes.append(os.path.dirname(os.path.abspath(torch.__file__)) + os.sep)
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            path = sysconfig.get_paths().get(key)
            if path:
                prefixes.append(os.path.abspath(path) + os.sep)
        self.library_prefixes = tuple(sorted(set(prefixes), key=len, reverse=True))
        self.case_dir = os.path.dirname(os.path.abspath(case_file)) + os.sep if case_file else None

    def is_user(self, filename):
        if not filename or filename.startswith("<"):
            return False
        path = os.path.abspath(filename)
        if path == HARNESS_FILE:
            return False
        if self.case_dir and path.startswith(self.case_dir):
            return True
        if path.startswith(self.library_prefixes):
            return False
        parts = path.split(os.sep)
        return "site-packages" not in parts and "dist-packages" not in parts


def frame_location(frame):
    """(filename, line) of a traceback.FrameSummary-like object."""
    return getattr(frame, "filename", None), getattr(frame, "lineno", None)


def innermost_user_frame(frames, classifier):
    """(filename, line, in_user_code) for a list of FrameSummary, innermost last."""
    for frame in reversed(list(frames or [])):
        filename, line = frame_location(frame)
        if classifier.is_user(filename):
            return filename, line, True
    if frames:
        filename, line = frame_location(list(frames)[-1])
        return filename, line, False
    return None, None, False


def exception_chain(error):
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def locate_error(error, classifier):
    """User file:line of an exception: Dynamo's user stack first, then its message, then the traceback."""
    for link in exception_chain(error):
        real_stack = getattr(link, "real_stack", None)
        if real_stack:
            filename, line, in_user = innermost_user_frame(real_stack, classifier)
            if in_user:
                return filename, line
        summary = getattr(link, "innermost_user_frame_summary", None)
        if summary is not None and classifier.is_user(getattr(summary, "filename", None)):
            return frame_location(summary)
    for link in exception_chain(error):
        message = str(link)
        marker = message.find("from user code:")
        if marker >= 0:
            found = [
                (name, int(line))
                for name, line in FROM_USER_CODE_FRAME.findall(message[marker:])
                if classifier.is_user(name)
            ]
            if found:
                return found[-1]
    for link in exception_chain(error):
        if isinstance(link, SyntaxError) and link.filename and classifier.is_user(link.filename):
            return link.filename, link.lineno
        filename, line, in_user = innermost_user_frame(traceback.extract_tb(link.__traceback__), classifier)
        if in_user:
            return filename, line
    return None, None


def innermost_user_traceback_entry(error, classifier):
    """The innermost traceback entry of `error` whose code is the user's, or None."""
    innermost = None
    entry = error.__traceback__
    while entry is not None:
        if classifier.is_user(entry.tb_frame.f_code.co_filename):
            innermost = entry
        entry = entry.tb_next
    return innermost


def innermost_user_traceback_frame(error, classifier):
    """(filename, line, function's first line, function's last line) of the innermost user frame in the
    traceback, or None."""
    innermost = innermost_user_traceback_entry(error, classifier)
    if innermost is None:
        return None
    code = innermost.tb_frame.f_code
    # The frame may run Dynamo-rewritten bytecode with a truncated line table: take the function's
    # extent from its source instead.
    last = code.co_firstlineno
    try:
        with open(code.co_filename, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                starts = [node.lineno] + [decorator.lineno for decorator in node.decorator_list]
                if code.co_firstlineno in starts and node.name == code.co_name:
                    last = getattr(node, "end_lineno", None) or last
                    break
    except (OSError, SyntaxError, ValueError):
        pass
    return code.co_filename, innermost.tb_lineno, code.co_firstlineno, last


RESUME_NAME = re.compile(r"__resume_at_(\d+)_\d+")
RESUME_CODE_NAME = re.compile(r"torch_dynamo_resume_in_.*_at_(\d+)$")


def original_code_map(torch):
    """Dynamo's map from the bytecode it rewrote to the user's original code (torch 2.0+)."""
    dynamo_utils = getattr(getattr(torch, "_dynamo", None), "utils", None)
    return getattr(dynamo_utils, "orig_code_map", None)


def line_of_offset(code, offset):
    """Source line of the instruction at `offset` in `code` (the last line start at or before it)."""
    line = None
    for start, start_line in dis.findlinestarts(code):
        if start > offset:
            break
        if start_line is not None:
            line = start_line
    return line


def statement_in_rewritten_frame(torch, error, classifier):
    """(filename, line) of the statement that raised inside bytecode Dynamo rewrote, or None.

    After a graph break Dynamo runs a rewritten copy of the user's function: a call of the compiled graph,
    then the unsupported instruction itself, then a call of `__resume_at_<offset>_<n>` (the rest of the
    function, from original offset <offset>). On torch ≤ 2.5 that copy's line table holds only the
    function's first line, so an error raised by the unsupported instruction (a TypeError from a
    torch.Size passed to torch.stack, say) points at the `def`. The instruction that raised sits between
    the graph call and the resume call; in the original code it is the instruction just before
    <offset>, whose line is the statement. Dynamo keeps the original code (torch._dynamo.utils.
    orig_code_map), also for resume functions, whose own lines are the user's."""
    code_map = original_code_map(torch)
    if code_map is None:
        return None
    innermost = innermost_user_traceback_entry(error, classifier)
    if innermost is None:
        return None
    rewritten = innermost.tb_frame.f_code
    if innermost.tb_lineno != rewritten.co_firstlineno:
        return None  # the traceback already names a statement
    try:
        original = code_map[rewritten]
    except (KeyError, TypeError):
        return None
    failed_at = innermost.tb_lasti
    resume_offset = None
    for instruction in dis.get_instructions(rewritten):
        if instruction.offset <= failed_at:
            continue
        if isinstance(instruction.argval, types.CodeType):
            # A resume function with free variables (the frame has closures) is built from its code object
            # (LOAD_CONST + MAKE_FUNCTION), named `torch_dynamo_resume_in_<fn>_at_<line>`: <line> is the
            # line Dynamo was at when it broke, the failing statement's.
            named = RESUME_CODE_NAME.match(instruction.argval.co_name)
            if named:
                return original.co_filename, int(named.group(1))
            continue
        found = RESUME_NAME.search(str(instruction.argval))
        if found:
            resume_offset = int(found.group(1))
            break
    if resume_offset is None:
        return None
    before = [instruction.offset for instruction in dis.get_instructions(original) if instruction.offset < resume_offset]
    if not before:
        return None
    line = line_of_offset(original, before[-1])
    if line is None:
        return None
    return original.co_filename, line


def describe_error(error, phase, classifier):
    filename, line = locate_error(error, classifier)
    formatted = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    described = {
        "type": type(error).__name__,
        "message": truncate(str(error), MESSAGE_LIMIT),
        "filename": filename,
        "line": line,
        "phase": phase,
        "traceback_tail": formatted[-TRACEBACK_TAIL_LIMIT:],
    }
    cause = error.__cause__
    if cause is not None:
        # Dynamo wraps user-code errors (e.g. TorchRuntimeError around a TypeError); keep the root.
        while cause.__cause__ is not None:
            cause = cause.__cause__
        described["cause_type"] = type(cause).__name__
        described["cause_message"] = truncate(str(cause), MESSAGE_LIMIT)
    return described


def is_out_of_memory(torch, error):
    oom_type = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None) if torch else None
    for link in exception_chain(error):
        if isinstance(link, MemoryError):
            return True
        if oom_type is not None and isinstance(link, oom_type):
            return True
        if isinstance(link, RuntimeError):
            text = str(link).lower()
            # CUDA: "CUDA out of memory"; CPU allocator: "DefaultCPUAllocator: not enough memory".
            if "out of memory" in text or "not enough memory" in text:
                return True
    return False


# --------------------------------------------------------------------------------------------
# the case


class CaseError(Exception):
    """The case itself is malformed (not an error raised by user code)."""


def load_factory(file_path, factory_name):
    directory = os.path.dirname(os.path.abspath(file_path))
    for entry in (os.getcwd(), directory):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    stem = os.path.splitext(os.path.basename(file_path))[0]
    module_name = stem if stem.isidentifier() and stem not in sys.modules else "graphbreak_case_" + str(abs(hash(file_path)))
    spec = importlib.util.spec_from_file_location(module_name, file_path)
    if spec is None or spec.loader is None:
        raise CaseError("cannot import %s as a Python module" % file_path)
    module = importlib.util.module_from_spec(spec)
    # Registered before execution so dataclasses/pickle inside the case can find their module.
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    factory = getattr(module, factory_name, None)
    if factory is None:
        raise CaseError("%s has no attribute %r" % (file_path, factory_name))
    if not callable(factory):
        raise CaseError("%s.%s is not callable" % (file_path, factory_name))
    return factory


def as_call(entry):
    """One schedule entry → (args tuple, kwargs dict)."""
    if isinstance(entry, tuple):
        return entry, {}
    if isinstance(entry, list):
        return tuple(entry), {}
    if isinstance(entry, dict):
        return (), dict(entry)
    return (entry,), {}


KNOWN_CASE_KEYS = {
    "model", "args", "kwargs", "loss", "inputs", "compile", "metric", "dtype", "atol", "rtol", "optimizer",
}


def normalize_case(made):
    """Factory return value → dict with every key present."""
    if isinstance(made, dict):
        if "model" not in made:
            raise CaseError("the factory returned a dict without a 'model' key (keys: %s)" % sorted(made))
        unknown = sorted(set(made) - KNOWN_CASE_KEYS)
        case = dict(made)
        case["unknown_keys"] = unknown
    elif isinstance(made, (tuple, list)) and len(made) == 2:
        case = {"model": made[0], "args": made[1], "unknown_keys": []}
    else:
        raise CaseError(
            "the factory must return (model, args) or a dict with 'model'; got %s" % type(made).__name__
        )
    if not callable(case["model"]):
        raise CaseError("'model' is not callable: %s" % type(case["model"]).__name__)
    inputs = case.get("inputs")
    if inputs is not None:
        if not isinstance(inputs, (list, tuple)) or not inputs:
            raise CaseError("'inputs' must be a non-empty list of argument tuples")
        case["inputs"] = [as_call(entry) for entry in inputs]
    if case.get("args") is not None:
        args, _ = as_call(case["args"])
    elif case.get("inputs"):
        args = case["inputs"][0][0]
    else:
        args = ()
    kwargs = case.get("kwargs") or {}
    if not isinstance(kwargs, dict):
        raise CaseError("'kwargs' must be a dict")
    if case.get("args") is None and case.get("inputs") and not kwargs:
        kwargs = case["inputs"][0][1]
    case["args"], case["kwargs"] = args, kwargs
    compile_options = case.get("compile") or {}
    if not isinstance(compile_options, dict):
        raise CaseError("'compile' must be a dict")
    case["compile"] = compile_options
    for key in ("loss", "metric"):
        if case.get(key) is not None and not callable(case[key]):
            raise CaseError("%r must be callable" % key)
    optimizer = case.get("optimizer")
    if optimizer is not None and not callable(getattr(optimizer, "step", None)):
        raise CaseError("'optimizer' must have a step() method (a torch.optim.Optimizer); got %s" % type(optimizer).__name__)
    return case


def merge_compile_options(case_options, overrides):
    """CLI overrides (non-null) over the case's own `compile` dict over torch.compile defaults."""
    effective = {"backend": "inductor", "dynamic": None, "mode": None, "fullgraph": False, "options": None}
    for key, value in case_options.items():
        if key in effective:
            effective[key] = value
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        effective[key] = None if (key == "dynamic" and value == "none") else value
    if effective.get("mode") == "default":
        effective["mode"] = None
    return effective


def compile_kwargs(effective):
    kwargs = {key: value for key, value in effective.items() if key in ("backend", "dynamic", "mode", "fullgraph")}
    if effective.get("options"):
        kwargs["options"] = effective["options"]
    if kwargs.get("mode") is None:
        kwargs.pop("mode", None)
    return kwargs


def describe_options(effective):
    described = {}
    for key, value in effective.items():
        if callable(value):
            value = getattr(value, "__name__", type(value).__name__)
        described[key] = value
    return described


def map_tensors(torch, value, function):
    if isinstance(value, torch.Tensor):
        return function(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(map_tensors(torch, item, function) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(map_tensors(torch, item, function) for item in value)
    if isinstance(value, dict):
        return {key: map_tensors(torch, item, function) for key, item in value.items()}
    return value


def iter_tensors(torch, value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from iter_tensors(torch, item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from iter_tensors(torch, item)


def shape_signature(torch, args, kwargs):
    """Hashable description of the tensor shapes/dtypes in one call (what Dynamo's shape guards see)."""
    return tuple(
        (tuple(tensor.shape), str(tensor.dtype)) for tensor in iter_tensors(torch, (args, sorted(kwargs.items())))
    )


# --------------------------------------------------------------------------------------------
# running steps


class Stepper:
    """Runs one step of the case (forward, or forward+loss+backward in training mode) under its contexts."""

    def __init__(self, torch, case, device):
        self.torch = torch
        self.case = case
        self.device = device
        self.training = case.get("loss") is not None
        self.autocast_dtype = None
        dtype_name = case.get("dtype")
        if dtype_name:
            dtype = getattr(torch, str(dtype_name), None)
            if not isinstance(dtype, torch.dtype):
                raise CaseError("unknown dtype %r (expected e.g. 'bfloat16')" % (dtype_name,))
            self.autocast_dtype = dtype
        # The modules whose parameters get gradients: the model, or those a wrapper callable reaches.
        self.modules = find_modules(torch, case["model"])
        self.cudagraph_callable = None
        # True during a reference run (float64, or the float32 fallback): no autocast there.
        self.reference_run = False
        # --profile's hook: called with "forward" / "loss" / "backward" / "optimizer" as each part of a
        # step starts, and with None when it ends.
        self.mark_phase = None
        # Stepped in every timed and profiled training step (never in reference or parity runs).
        self.optimizer = case.get("optimizer") if self.training else None

    def context(self):
        stack = contextlib.ExitStack()
        if not self.training:
            stack.enter_context(self.torch.no_grad())
        if self.autocast_dtype is not None and not self.reference_run:
            stack.enter_context(self.torch.autocast(device_type=self.device, dtype=self.autocast_dtype))
        return stack

    def leaves(self, args, kwargs):
        found = []
        seen = set()
        for position, module in enumerate(self.modules):
            prefix = "" if position == 0 else "module%d." % position
            for name, parameter in module.named_parameters():
                if parameter.requires_grad and id(parameter) not in seen:
                    seen.add(id(parameter))
                    found.append((prefix + name, parameter))
        for index, tensor in enumerate(iter_tensors(self.torch, (args, kwargs))):
            if tensor.requires_grad and tensor.is_leaf:
                found.append(("input%d" % index, tensor))
        return found

    def zero_grads(self, args, kwargs):
        for _, tensor in self.leaves(args, kwargs):
            tensor.grad = None

    def step(self, function, args, kwargs):
        """Returns (outputs, loss) where loss is None outside training mode."""
        if function is self.cudagraph_callable:
            # CUDA graphs (mode="reduce-overhead") reuse output memory between replays; a training loop
            # must mark each step so the previous step's tensors are not overwritten under it.
            self.torch.compiler.cudagraph_mark_step_begin()
        mark = self.mark_phase or (lambda phase: None)
        mark("forward")
        if self.training:
            self.zero_grads(args, kwargs)
        with self.context():
            outputs = function(*args, **kwargs)
            if self.training:
                mark("loss")
            loss = self.case["loss"](outputs) if self.training else None
        if loss is not None:
            mark("backward")
            loss.backward()
        return outputs, loss

    def training_step(self, function, args, kwargs):
        """The step both the timing pass and the --profile passes measure (one definition, so their
        figures agree): grads set to None, forward, loss, backward, then the case's optimizer.step().
        When only the profile pass stepped the optimizer, one compiled ResNet-50 step on the H200 read
        18.5 ms timed and 35.0 ms profiled (by hand: 27.7-33.2 ms, depending on optimizer and zero_grad)."""
        mark = self.mark_phase or (lambda phase: None)
        self.step(function, args, kwargs)
        if self.optimizer is not None:
            mark("optimizer")
            self.optimizer.step()
        mark(None)

    def grads(self, args, kwargs):
        return {
            name: tensor.grad.detach().clone()
            for name, tensor in self.leaves(args, kwargs)
            if tensor.grad is not None
        }

    def synchronize(self):
        if self.device == "cuda":
            self.torch.cuda.synchronize()


def time_one_step(stepper, function, args, kwargs):
    torch = stepper.torch
    if stepper.device == "cuda":
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        stepper.training_step(function, args, kwargs)
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end))
    started = time.perf_counter()
    stepper.training_step(function, args, kwargs)
    return (time.perf_counter() - started) * 1000.0


def time_interleaved(stepper, eager_fn, compiled_fn, args, kwargs, warmup, steps):
    """Eager and compiled steps alternate (ABBA…), so both see the same machine. Timed back to back,
    a busy or throttling host makes one side look fast and the other slow: on a loaded 2-core CI
    box, eager CPU steps of a tiny MLP swung from 0.2 ms to 48 ms (OpenMP threads fighting other
    processes) while the compiled block ran in a quiet moment, reporting a 177x "speedup"."""
    for _ in range(warmup):
        stepper.training_step(eager_fn, args, kwargs)
        stepper.training_step(compiled_fn, args, kwargs)
    stepper.synchronize()
    eager, compiled = [], []
    for index in range(steps):
        pairs = ((eager_fn, eager), (compiled_fn, compiled))
        for function, samples in pairs if index % 2 == 0 else reversed(pairs):
            samples.append(time_one_step(stepper, function, args, kwargs))
    return eager, compiled


def timing_warmup(warmup):
    """Interleaved warm-up pairs still needed before timing: the eager reference step and the compile's
    own calls already ran each side once, so one fewer — but at least one pair when any was asked for
    (the float64 run and the parity comparison ran in between)."""
    return max(warmup - 1, min(warmup, 1))


def timing_unstable(stats):
    """A spread this wide means the median describes the machine's load, not the code."""
    return bool(stats) and stats["p10"] > 0 and stats["p90"] / stats["p10"] > UNSTABLE_SPREAD


def time_steps(stepper, function, args, kwargs, warmup, steps):
    for _ in range(warmup):
        stepper.training_step(function, args, kwargs)
    stepper.synchronize()
    return [time_one_step(stepper, function, args, kwargs) for _ in range(steps)]


# --------------------------------------------------------------------------------------------
# parity


def default_tolerances(torch, outputs, autocast_dtype):
    names = set()
    if autocast_dtype is not None:
        names.add(str(autocast_dtype).replace("torch.", ""))
    for tensor in iter_tensors(torch, outputs):
        if tensor.is_floating_point():
            names.add(str(tensor.dtype).replace("torch.", ""))
    chosen = DEFAULT_TOLERANCES["float32"]
    for name in names:
        candidate = DEFAULT_TOLERANCES.get(name)
        if candidate and candidate[0] > chosen[0]:
            chosen = candidate
    return chosen


# Parity, the way PyTorch's dynamo benchmark runner checks accuracy (benchmarks/dynamo/common.py,
# torch._dynamo.utils.same): a float64 run of the same step is the reference; the compiled result fails
# only when its error against that reference is clearly larger than eager's own error (a multiplier),
# because bf16/fp16 eager is itself far from exact and GPU backward passes are not bitwise repeatable.
# A model that cannot run in float64 (it hard-codes float32) is judged the same way against a float32
# run with autocast off, when eager ran below float32 (ParityCheck, Run.parity_reference).

# Outputs this small are noise-dominated: the runner allows a larger multiplier for them.
SMALL_TENSOR_NUMEL = 1000
PARITY_ENTRY_LIMIT = 32
WORST_GRADS_SHOWN = 5


def reset_seeds(torch):
    """Same random numbers for every run of the checked step (torch CPU+CUDA, Python, NumPy if loaded)."""
    import random  # noqa: PLC0415 - only needed here

    torch.manual_seed(0)
    random.seed(0)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        try:
            numpy.random.seed(0)
        except Exception:  # noqa: BLE001
            pass


def rng_states(torch, device):
    states = [torch.get_rng_state()]
    if device == "cuda":
        try:
            states.extend(torch.cuda.get_rng_state_all())
        except Exception:  # noqa: BLE001
            pass
    return states


def draws_random_numbers(torch, before, after):
    """True when a generator moved between two rng_states() snapshots: the step drew random numbers
    (dropout, rand*), so eager and Inductor must share an RNG for outputs to be comparable."""
    if len(before) != len(after):
        return True
    return any(not torch.equal(left, right) for left, right in zip(before, after))


def find_modules(torch, function, depth=0):
    """The nn.Modules a case's callable runs: the model itself, or the modules a wrapper function, bound
    method, functools.partial or plain object reaches through its closure, globals it names, and
    attributes. A training case wrapped in `def step(x): return net(x)` has parameters too: without
    them, no gradient is compared (this is how a bf16 training case reported grad_max_abs_diff 0.0)."""
    Module = torch.nn.Module
    if isinstance(function, Module):
        return [function]
    if depth > 2 or function is None:
        return []
    found = []

    def add(candidates):
        for candidate in candidates:
            for module in find_modules(torch, candidate, depth + 1):
                if all(module is not existing for existing in found):
                    found.append(module)

    bound_self = getattr(function, "__self__", None)
    if bound_self is not None and not isinstance(bound_self, type(sys)):
        add([bound_self])
    inner = getattr(function, "func", None)  # functools.partial
    if inner is not None:
        add([inner, *getattr(function, "args", ()), *(getattr(function, "keywords", None) or {}).values()])
    code = getattr(function, "__code__", None)
    if code is not None:
        cells = []
        for cell in getattr(function, "__closure__", None) or ():
            try:
                cells.append(cell.cell_contents)
            except ValueError:  # an empty cell
                pass
        add(cells)
        module_globals = getattr(function, "__globals__", {}) or {}
        add([module_globals[name] for name in code.co_names if name in module_globals])
    elif not callable(function) or depth > 0:
        return found
    else:
        add([value for value in getattr(function, "__dict__", {}).values() if isinstance(value, Module)])
    # Keep only the outermost modules (a submodule's parameters come with its parent).
    return [m for m in found if not any(m is not other and any(m is sub for sub in other.modules()) for other in found)]


def module_tensors(modules):
    """(owner module, kind, key, tensor) for every parameter and buffer slot of the modules."""
    slots = []
    for module in modules:
        for owner in module.modules():
            for key, tensor in owner._parameters.items():
                if tensor is not None:
                    slots.append((owner, "parameter", key, tensor))
            for key, tensor in owner._buffers.items():
                if tensor is not None:
                    slots.append((owner, "buffer", key, tensor))
    return slots


class ModuleState:
    """Values of every parameter and buffer, restored in place (same tensor objects, same storage, so
    compiled graphs and their guards are untouched). Each checked run starts from the same state even
    when timing steps or a user-stepped optimizer changed it in between."""

    def __init__(self, torch, modules):
        self.torch = torch
        with torch.no_grad():
            self.saved = [(tensor, tensor.detach().clone()) for _, _, _, tensor in module_tensors(modules)]

    def restore(self):
        with self.torch.no_grad():
            for tensor, value in self.saved:
                if tensor.shape == value.shape and tensor.dtype == value.dtype:
                    tensor.copy_(value)


@contextlib.contextmanager
def modules_cast_to(torch, modules, dtype):
    """Casts the modules' floating tensors to `dtype` in place for one reference run, then puts every
    original tensor back (the same objects: nothing compiled later sees a difference)."""
    slots = module_tensors(modules)
    originals = [(owner, kind, key, tensor, tensor.data) for owner, kind, key, tensor in slots]
    # Plain attributes too: modules cache tensors outside parameters/buffers and rebuild them for the
    # input's dtype (torchvision's AnchorGenerator.cell_anchors). Left as float64, they made the later
    # compile guard on Double and recompile on the first bf16 call (seen on Faster R-CNN, H200).
    attributes = []
    for module in modules:
        for owner in module.modules():
            state = {key: value for key, value in vars(owner).items() if key not in MODULE_SLOT_DICTS}
            attributes.append((owner, state))
    try:
        for module in modules:
            module.to(dtype)
        yield
    finally:
        for owner, state in attributes:
            for key in [key for key in vars(owner) if key not in MODULE_SLOT_DICTS and key not in state]:
                delattr(owner, key)
            for key, value in state.items():
                if vars(owner).get(key) is not value:
                    object.__setattr__(owner, key, value)
        for owner, kind, key, tensor, data in originals:
            if kind == "parameter":
                parameter = owner._parameters.get(key)
                if parameter is not None:
                    parameter.data = data
                    parameter.grad = None
            else:
                owner._buffers[key] = tensor


MODULE_SLOT_DICTS = ("_parameters", "_buffers", "_modules")
LOW_PRECISION_DTYPES = ("float16", "bfloat16")


def runs_below_float32(torch, case, stepper):
    """Eager computes in less than float32: under fp16/bf16 autocast, or with fp16/bf16 weights or inputs.
    A float32 run of the same step is then a more precise reference than eager itself."""
    low = tuple(getattr(torch, name) for name in LOW_PRECISION_DTYPES)
    if stepper.autocast_dtype in low:
        return True
    tensors = [tensor for _, _, _, tensor in module_tensors(stepper.modules)]
    tensors.extend(iter_tensors(torch, (case["args"], case["kwargs"])))
    return any(tensor.dtype in low for tensor in tensors)


def floating_cast_to(torch, value, dtype):
    def convert(tensor):
        if not tensor.is_floating_point():
            return tensor
        converted = tensor.detach().to(dtype)
        return converted.requires_grad_(tensor.requires_grad) if tensor.is_leaf else converted

    return map_tensors(torch, value, convert)


def to_cpu(torch, value):
    """Detached copies on the CPU (a copy even for CPU tensors: later steps must not change them)."""
    return map_tensors(torch, value, lambda tensor: tensor.detach().to("cpu", copy=True))


def rmse(torch, reference, candidate):
    return float(torch.sqrt(torch.mean(torch.square(reference - candidate))))


def cosine(torch, left, right):
    left, right = left.flatten(), right.flatten()
    if torch.allclose(left, right):
        return 1.0
    return float(torch.nn.functional.cosine_similarity(left, right, dim=0, eps=1e-12))


def finite_or_none(value):
    return value if value is not None and math.isfinite(value) else None


class ParityCheck:
    """Walks eager, compiled and (when there is one) reference results side by side and gives every
    tensor a verdict: `allclose` (eager and compiled agree within atol/rtol), `within_multiplier`
    (compiled's RMSE against the reference ≤ multiplier × eager's + atol/10), else `worse` / `mismatch`
    (shape, type, keys). The reference is a float64 run, or a float32 run without autocast when float64
    cannot run (`reference_name`); without any (eager ran in float32 and float64 failed) allclose alone
    decides: a per-index comparison against eager alone measures any reordering of the outputs (top-k
    selections permute under any numeric change), not a miscompile, so no looser rule is guessed."""

    def __init__(self, torch, atol, rtol, low_precision, reference_name="float64"):
        self.torch = torch
        self.reference_name = reference_name
        self.atol = atol
        self.rtol = rtol
        self.low_precision = low_precision
        self.entries = []
        self.max_abs = None
        self.max_rel = None

    def multiplier(self, eager, numel):
        if numel < SMALL_TENSOR_NUMEL:
            return 3.0
        low = self.low_precision or eager.dtype in (self.torch.float16, self.torch.bfloat16)
        return 3.0 if low else 2.0

    def mismatch(self, name, why):
        self.entries.append({"name": name, "ok": False, "verdict": "mismatch", "detail": why})

    def walk(self, name, eager, compiled, reference):
        torch = self.torch
        if isinstance(eager, torch.Tensor) or isinstance(compiled, torch.Tensor):
            if not (isinstance(eager, torch.Tensor) and isinstance(compiled, torch.Tensor)):
                self.mismatch(name, "tensor vs %s" % type(compiled if isinstance(eager, torch.Tensor) else eager).__name__)
                return
            if not isinstance(reference, torch.Tensor) or reference.shape != eager.shape:
                reference = None
            self.tensor(name, eager, compiled, reference)
            return
        if isinstance(eager, dict) and isinstance(compiled, dict):
            if set(eager) != set(compiled):
                self.mismatch(name, "dict keys differ")
                return
            for key in eager:
                child_reference = reference.get(key) if isinstance(reference, dict) else None
                self.walk("%s[%r]" % (name, key), eager[key], compiled[key], child_reference)
            return
        if isinstance(eager, (list, tuple)) and isinstance(compiled, (list, tuple)):
            if len(eager) != len(compiled):
                self.mismatch(name, "length %d vs %d" % (len(eager), len(compiled)))
                return
            references = reference if isinstance(reference, (list, tuple)) and len(reference) == len(eager) else [None] * len(eager)
            for index, (left, right, ref) in enumerate(zip(eager, compiled, references)):
                self.walk("%s[%d]" % (name, index), left, right, ref)
            return
        if isinstance(eager, float) and isinstance(compiled, (int, float)):
            as_tensor = lambda v: torch.tensor(float(v), dtype=torch.float64)  # noqa: E731
            ref = as_tensor(reference) if isinstance(reference, (int, float)) else None
            self.tensor(name, as_tensor(eager), as_tensor(compiled), ref)
            return
        try:
            equal = bool(eager == compiled)
        except Exception:  # noqa: BLE001 - objects without a usable ==: not comparable, not a failure
            return
        if not equal:
            self.mismatch(name, "%s vs %s" % (truncate(eager, 80), truncate(compiled, 80)))

    def tensor(self, name, eager, compiled, reference):
        torch = self.torch
        entry = {"name": name, "dtype": str(eager.dtype).replace("torch.", ""), "numel": int(eager.numel())}
        if eager.shape != compiled.shape:
            entry.update(ok=False, verdict="mismatch", detail="shape %s vs %s" % (tuple(eager.shape), tuple(compiled.shape)))
            self.entries.append(entry)
            return
        if eager.numel() == 0:
            entry.update(ok=True, verdict="allclose")
            self.entries.append(entry)
            return
        floating = eager.is_floating_point() or eager.is_complex()
        left = eager.detach().to("cpu", torch.float64)
        right = compiled.detach().to("cpu", torch.float64)
        ref = reference.detach().to("cpu", torch.float64) if reference is not None else None
        both_nan = torch.isnan(left) & torch.isnan(right)
        difference = torch.where(both_nan, torch.zeros_like(left), (left - right).abs())
        difference = torch.where(torch.isnan(difference), torch.full_like(difference, float("inf")), difference)
        difference = torch.where(torch.isinf(left) & (left == right), torch.zeros_like(difference), difference)
        max_abs = float(difference.max())
        max_rel = float((difference / left.abs().clamp_min(self.atol)).max())
        entry["max_abs_diff"] = finite_or_none(max_abs)
        self.max_abs = max(self.max_abs or 0.0, max_abs)
        self.max_rel = max(self.max_rel or 0.0, max_rel)
        if not floating:
            # Integer/bool outputs (labels, masks): the error is the fraction of differing elements.
            mismatched = float((left != right).double().mean())
            if ref is not None:
                eager_error = float((left != ref).double().mean())
                compiled_error = float((right != ref).double().mean())
                entry.update(eager_error=eager_error, compiled_error=compiled_error)
                ok = compiled_error <= eager_error
            else:
                ok = mismatched == 0.0
            entry.update(ok=ok, verdict="allclose" if mismatched == 0.0 else ("within_multiplier" if ok else "worse"))
            self.entries.append(entry)
            return
        if bool((difference <= self.atol + self.rtol * left.abs()).all()):
            entry.update(ok=True, verdict="allclose")
        if ref is not None and torch.isfinite(ref).all():
            eager_error = rmse(torch, ref, left)
            compiled_error = rmse(torch, ref, right)
            multiplier = self.multiplier(eager, eager.numel())
            scale = float(torch.sqrt(torch.mean(torch.square(ref))))
            entry.update(
                eager_error=finite_or_none(eager_error),
                compiled_error=finite_or_none(compiled_error),
                # Eager's own error relative to the reference's scale: large when the outputs reorder
                # (top-k selections) under any numeric change; the report then says the ratio decided.
                eager_relative_error=finite_or_none(eager_error / scale) if scale > 0 else None,
                multiplier=multiplier,
                ratio=finite_or_none(compiled_error / eager_error) if eager_error > 0 else None,
                cosine=finite_or_none(cosine(torch, ref, right)),
            )
            if "ok" not in entry:
                within = compiled_error <= multiplier * eager_error + self.atol / 10.0
                entry.update(ok=bool(within), verdict="within_multiplier" if within else "worse")
        elif "ok" not in entry:
            entry.update(ok=False, verdict="worse", detail="not allclose, and no reference more precise than eager")
        self.entries.append(entry)

    @property
    def ok(self):
        return all(entry["ok"] for entry in self.entries)

    def problems(self):
        for entry in self.entries:
            if entry["ok"]:
                continue
            if entry["verdict"] == "mismatch":
                yield "%s: %s" % (entry["name"], entry.get("detail", "mismatch"))
            elif entry.get("compiled_error") is not None and entry.get("eager_error") is not None:
                yield "%s: compiled error vs %s %.3g > %.1f x eager's %.3g (max abs diff %.3g)" % (
                    entry["name"], self.reference_name, entry["compiled_error"], entry.get("multiplier") or 0.0,
                    entry["eager_error"], entry.get("max_abs_diff") or 0.0)
            else:
                yield "%s: max abs diff %.3g beyond atol=%g rtol=%g (%s)" % (
                    entry["name"], entry.get("max_abs_diff") or float("inf"), self.atol, self.rtol,
                    entry.get("detail") or "no reference")


def one_sided_zero_grads(torch, eager_grads, compiled_grads):
    """Names of the tensors with a gradient on one side only, all zeros there: equal to `None`. A parameter
    that reaches an output but not the loss gets `None` from eager's autograd and zeros from a compiled
    backward (the compiled graph is one autograd function; its unused outputs get zero gradients)."""
    found = []
    for name in sorted(set(eager_grads) ^ set(compiled_grads)):
        gradient = eager_grads.get(name)
        if gradient is None:
            gradient = compiled_grads[name]
        if not bool(torch.count_nonzero(gradient)):
            found.append(name)
    return found


def summarize_grad_parity(check, none_vs_zero=0):
    """Gradients: a count and the worst few (by compiled/eager error ratio), not one entry per parameter;
    `none_vs_zero`: tensors with `None` on one side and all zeros on the other (counted equal)."""
    entries = check.entries
    failed = [entry for entry in entries if not entry["ok"]]

    def badness(entry):
        if not entry["ok"]:
            return (1, entry.get("ratio") or float("inf"))
        return (0, entry.get("ratio") or 0.0)

    worst = sorted(entries, key=badness, reverse=True)[:WORST_GRADS_SHOWN]
    ratios = [entry["ratio"] for entry in entries if entry.get("ratio") is not None]
    return {
        "compared": len(entries),
        "failed": len(failed),
        "max_ratio": max(ratios) if ratios else None,
        "max_abs_diff": finite_or_none(check.max_abs) if entries else None,
        "worst": worst,
        "none_vs_zero": none_vs_zero,
    }


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
            path == HARNESS_FILE
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


# --------------------------------------------------------------------------------------------
# Dynamo facts


def reset_dynamo(torch):
    try:
        torch._dynamo.reset()
    except Exception:  # noqa: BLE001 - a failing reset must not hide the case's own result
        pass


def run_explain(torch, function, args, kwargs):
    """torch._dynamo.explain across versions: explain(fn)(*args) (2.1+) or explain(fn, *args) (older)."""
    explain = torch._dynamo.explain
    try:
        prepared = explain(function)
    except TypeError:
        prepared = None
    if prepared is not None and hasattr(prepared, "graph_count"):
        return prepared
    if callable(prepared):
        return prepared(*args, **kwargs)
    return explain(function, *args, **kwargs)


def describe_break(reason_object, classifier, logged_details):
    """One explain() break reason → result entry. Some reasons are developer strings without a GB code
    (e.g. 'generic_jump TensorVariable()' for a tensor `if`); the graph_breaks log line for the same
    frame (innermost of the break's stack) carries the user-facing reason and code: prefer it then."""
    reason_text = str(getattr(reason_object, "reason", reason_object))
    stack = list(getattr(reason_object, "user_stack", None) or [])
    filename, line, in_user = innermost_user_frame(stack, classifier)
    reason_line = first_line(reason_text)
    code = GB_CODE_PATTERN.search(reason_text)
    gb_code = ("GB" + code.group(1)) if code else None
    if gb_code is None and stack:
        innermost_file, innermost_line = frame_location(stack[-1])
        if innermost_file:
            logged_reason, logged_code = logged_details.get((os.path.abspath(innermost_file), innermost_line), (None, None))
            if logged_code:
                gb_code = logged_code
                reason_line = logged_reason or reason_line
    return {
        "reason": truncate(reason_line, REASON_LIMIT),
        "filename": filename,
        "line": line,
        "gb_code": gb_code,
        "in_user_code": in_user,
        "frames": ["%s:%s" % frame_location(frame) for frame in stack],
    }


class DynamoLogRecorder(logging.Handler):
    """Collects Dynamo's structured log records (the `recompiles` / `graph_breaks` artifacts that
    `TORCH_LOGS=...` would print) through a logging.Handler, plus recompile-limit warnings.

    A data-dependent jump (`if tensor:`) breaks the graph without a `graph_breaks` record on torch ≤ 2.5
    (its generic_jump compiles the partial graph directly); its only trace is output_graph's DEBUG record
    "COMPILING GRAPH due to <GraphCompileReason>", whose user stack names the jump. Those records are read
    too (`compile_reasons`), and a generic_jump break at a location no graph_breaks record names becomes
    a break record of the 2.2-2.5 form, so count and list agree on every torch."""

    def __init__(self, torch, artifacts):
        super().__init__(level=logging.DEBUG)
        self.torch = torch
        self.artifacts = artifacts
        self.recompile_messages = []
        self.limit_messages = []
        self.logged_break_messages = []
        # (reason, filename, line, function) of each generic_jump graph compile (see the class doc).
        self.jump_breaks = []
        self.logging_enabled = False
        self.logger = None
        self.output_graph_logger = None
        self.output_graph_state = None

    def emit(self, record):
        if record.name == OUTPUT_GRAPH_LOGGER:
            self.record_compile_reason(record)
            return
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001
            return
        if message.startswith("Recompiling function"):
            self.recompile_messages.append(message)
        elif message.startswith("Graph break"):
            # torch ≤ 2.5 logs the reason only as the record's exception (exc_info), not in the text.
            exception = record.exc_info[1] if record.exc_info else None
            if exception is not None and "Graph Break Reason:" not in message:
                message += "\n%s %s" % (GRAPH_BREAK_EXCEPTION_MARKER, first_line(exception))
            self.logged_break_messages.append(message)
        elif LIMIT_HIT_PATTERN.search(message) or "cache_size_limit reached" in message:
            self.limit_messages.append(message)

    def __enter__(self):
        set_logs = getattr(getattr(self.torch, "_logging", None), "set_logs", None)
        if set_logs is not None:
            try:
                set_logs(**{artifact: True for artifact in self.artifacts})
                self.logging_enabled = True
            except Exception:  # noqa: BLE001 - older torch without the artifact: fall back to counters
                self.logging_enabled = False
        self.logger = logging.getLogger("torch._dynamo")
        self.logger.addHandler(self)
        # output_graph's DEBUG records, to this handler only (not printed: propagation off meanwhile).
        self.output_graph_logger = logging.getLogger(OUTPUT_GRAPH_LOGGER)
        self.output_graph_state = (self.output_graph_logger.level, self.output_graph_logger.propagate)
        self.output_graph_logger.setLevel(logging.DEBUG)
        self.output_graph_logger.propagate = False
        self.output_graph_logger.addHandler(self)
        return self

    def __exit__(self, *exc_info):
        if self.output_graph_logger is not None:
            self.output_graph_logger.removeHandler(self)
            self.output_graph_logger.setLevel(self.output_graph_state[0])
            self.output_graph_logger.propagate = self.output_graph_state[1]
        if self.logger is not None:
            self.logger.removeHandler(self)
        if self.logging_enabled:
            try:
                self.torch._logging.set_logs()
            except Exception:  # noqa: BLE001
                pass
        return False

    def snapshot(self):
        return len(self.recompile_messages), len(self.limit_messages)

    def record_compile_reason(self, record):
        """A 'COMPILING GRAPH due to %s' record whose GraphCompileReason is a generic_jump graph break."""
        reason = record.args[0] if isinstance(record.args, tuple) and record.args else None
        text = getattr(reason, "reason", None)
        stack = getattr(reason, "user_stack", None)
        if not isinstance(text, str) or not text.startswith("generic_jump") or not stack:
            return
        if getattr(reason, "graph_break", True) is False:
            return
        frame = stack[-1]
        filename, line = frame_location(frame)
        if filename and line:
            self.jump_breaks.append((first_line(text), os.path.abspath(filename), int(line), getattr(frame, "name", "?")))

    @property
    def graph_break_messages(self):
        """The graph_breaks records, plus one record (2.2-2.5 form) per generic_jump break at a location
        no record names: on torch ≤ 2.5 a data-dependent jump logs none."""
        messages = list(self.logged_break_messages)
        named = {self.graph_break_location(message) for message in messages}
        for reason, filename, line, function in self.jump_breaks:
            if (filename, line) in named:
                continue
            named.add((filename, line))
            messages.append('Graph break: %s from user code at:\n  File "%s", line %d, in %s'
                            % (reason, filename, line, function))
        return messages

    @staticmethod
    def graph_break_location(message):
        """(abs filename, line) of one graph_breaks log message. Formats: 2.11 'Graph break in user code
        at FILE:LINE'; 2.4 'Graph break: from user code at:\n  File "FILE", line LINE, in fn'."""
        match = re.match(r"Graph break in user code at (.+):(\d+)", message)
        if match:
            return os.path.abspath(match.group(1)), int(match.group(2))
        marker = message.find("from user code at:")
        if marker >= 0:
            match = FROM_USER_CODE_FRAME.search(message, marker)
            if match:
                return os.path.abspath(match.group(1)), int(match.group(2))
        return None

    def graph_break_locations(self):
        found = (self.graph_break_location(message) for message in self.graph_break_messages)
        return [location for location in found if location is not None]

    def parsed_graph_breaks(self, classifier):
        """One result entry per logged graph break, in log order, deduplicated by location (some torch
        versions log a break twice: a hint and the structured record)."""
        entries = {}
        for message in self.graph_break_messages:
            parsed = parse_graph_break_message(message, classifier)
            if parsed is None:
                continue
            key = parsed.pop("key")
            known = entries.get(key)
            # Prefer the record with a reason code, a reason and a stack over a bare hint.
            if known is None or break_record_quality(parsed) > break_record_quality(known):
                entries[key] = parsed
        # A hint record (no reason) whose header names an outer frame duplicates a full record that
        # ends in the same frame.
        explained = {(entry["filename"], entry["line"]) for entry in entries.values() if entry["reason"]}
        kept = [
            entry for entry in entries.values()
            if entry["reason"] or (entry["filename"], entry["line"]) not in explained
        ]
        for entry in kept:
            entry["reason"] = entry["reason"] or "graph break"
        return kept

    def graph_break_details(self):
        """{(filename, line): (reason line, gb_code)} from the graph_breaks artifact."""
        details = {}
        for message in self.graph_break_messages:
            location = self.graph_break_location(message)
            if location is None:
                continue
            reason_line = None
            marker = message.find("Graph Break Reason:")
            if marker >= 0:
                for line in message[marker + len("Graph Break Reason:"):].splitlines():
                    stripped = line.strip()
                    if stripped and not stripped.startswith("Encountered graph break"):
                        reason_line = stripped
                        break
            code = GB_CODE_PATTERN.search(message)
            details.setdefault(location, (reason_line, ("GB" + code.group(1)) if code else None))
        return details


OUTPUT_GRAPH_LOGGER = "torch._dynamo.output_graph"


def break_record_quality(entry):
    return (entry["gb_code"] is not None, entry["reason"] is not None, len(entry["frames"]))


# Object addresses in reasons (`<built-in method stack of type object at 0x7f0b...>`) differ every run:
# a baseline would see a "new" break each time.
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def dynamo_graph_counts(torch):
    """(graphs compiled, graph breaks) so far, from torch._dynamo.utils.counters; None without them."""
    counters = getattr(getattr(getattr(torch, "_dynamo", None), "utils", None), "counters", None)
    if counters is None:
        return None
    try:
        return int(counters["stats"]["unique_graphs"]), int(sum(counters["graph_break"].values()))
    except Exception:  # noqa: BLE001
        return None


GRAPH_BREAK_EXCEPTION_MARKER = "Graph break exception:"
FRAME_LINE = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.MULTILINE)


def parse_graph_break_message(message, classifier):
    """A `graph_breaks` log record → result entry (+ "key" for deduplication), or None. Formats:
    2.6+: 'Graph break in user code at FILE:LINE\nGraph Break Reason: ...\nUser code traceback:\n  File ...'
    2.2-2.5: 'Graph break: REASON from user code at:\n  File "FILE", line LINE, in fn' (also the form a
    2.11 hint uses: 'Graph break from `Tensor.item()`, ...\nGraph break: from user code at: ...')."""
    location = DynamoLogRecorder.graph_break_location(message)
    if location is None:
        return None
    reason = None
    marker = message.find("Graph Break Reason:")
    if marker >= 0:
        lines = [line.strip() for line in message[marker + len("Graph Break Reason:"):].splitlines() if line.strip()]
        lines = [line for line in lines if not line.startswith("Encountered graph break")]
        if lines:
            reason = lines[0]
            # "Failed to handle graph break gracefully. Skipping the function and falling back to eager.
            # Graph break encountered:" is a header; the cause is on the next line.
            if reason.endswith("Graph break encountered:") and len(lines) > 1:
                reason = lines[1]
    elif GRAPH_BREAK_EXCEPTION_MARKER in message:
        reason = first_line(message[message.rfind(GRAPH_BREAK_EXCEPTION_MARKER) + len(GRAPH_BREAK_EXCEPTION_MARKER):])
    else:
        match = re.match(r"Graph break:\s*(.*?)\s*from user code at:", message, re.DOTALL)
        if match and match.group(1).strip():
            reason = first_line(match.group(1))
    stack_start = message.find("User code traceback:")
    if stack_start < 0:
        stack_start = message.find("from user code at:")
    frames = []
    if stack_start >= 0:
        frames = [(name, int(line)) for name, line in FRAME_LINE.findall(message[stack_start:])]
    # Newer torch prints the whole Python stack: keep what is inside the harness's call of the case,
    # from the first user frame on (torch's nn.Module call plumbing in between says nothing).
    harness_frames = [index for index, frame in enumerate(frames) if os.path.abspath(frame[0]) == HARNESS_FILE]
    if harness_frames:
        frames = frames[harness_frames[-1] + 1:]
    first_user = next((index for index, frame in enumerate(frames) if classifier.is_user(frame[0])), 0)
    frames = frames[first_user:]
    summaries = [traceback.FrameSummary(name, line, "") for name, line in frames] or [
        traceback.FrameSummary(location[0], location[1], "")
    ]
    filename, line, in_user = innermost_user_frame(summaries, classifier)
    code = GB_CODE_PATTERN.search(message)
    return {
        "key": location,
        "reason": truncate(ADDRESS.sub("", reason), REASON_LIMIT) if reason else None,
        "filename": filename,
        "line": line,
        "gb_code": ("GB" + code.group(1)) if code else None,
        "in_user_code": in_user,
        "frames": ["%s:%s" % frame for frame in frames],
    }


def recompile_reason(message):
    """First guard failure of one 'Recompiling function ...' message, whitespace collapsed."""
    lines = message.splitlines()
    header = lines[0].strip() if lines else ""
    start = 1
    for index, line in enumerate(lines):
        if "triggered by" in line:
            start = index + 1
            break
    for line in lines[start:]:
        stripped = line.strip()
        if stripped.startswith("- ") and not stripped.startswith("- User stack"):
            text = re.sub(r"\s+", " ", stripped[2:]).strip()
            return truncate(text, REASON_LIMIT)
        if stripped and not stripped.startswith("-"):
            return truncate(re.sub(r"\s+", " ", stripped), REASON_LIMIT)
    return truncate(header, REASON_LIMIT)


def recompile_limit_name(torch):
    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(config, name):
            return name, getattr(config, name)
    return None, None


CACHE_COUNTERS = (
    ("inductor", "fxgraph_cache_hit"), ("inductor", "fxgraph_cache_miss"),
    ("aot_autograd", "autograd_cache_hit"), ("aot_autograd", "autograd_cache_miss"),
)


def compile_cache_counts(torch):
    counters = getattr(getattr(torch._dynamo, "utils", None), "counters", None) or {}
    return {(group, name): counters.get(group, {}).get(name, 0) for group, name in CACHE_COUNTERS}


def compile_cache_verdict(before, after, directory_state):
    """'warm' when the first compile was served from Inductor's/AOTAutograd's on-disk caches, 'cold' when
    any graph missed them (counters, where this torch keeps them: 2.11 does, 2.4 with its default
    config does not); else what the cache directory looked like before the run."""
    hits = sum(after[key] - before[key] for key in after if key[1].endswith("_hit"))
    misses = sum(after[key] - before[key] for key in after if key[1].endswith("_miss"))
    if misses > 0:
        return "cold"
    if hits > 0:
        return "warm"
    return directory_state


def inductor_cache_state(torch, backend):
    """'cold' when the Inductor on-disk cache is empty or missing before the run; None for other backends."""
    if backend != "inductor":
        return None
    directory = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if not directory:
        try:
            from torch._inductor.runtime.cache_dir_utils import cache_dir  # noqa: PLC0415 - torch 2.3+
            directory = cache_dir()
        except Exception:  # noqa: BLE001
            try:
                from torch._inductor.utils import cache_dir  # noqa: PLC0415 - older torch
                directory = cache_dir()
            except Exception:  # noqa: BLE001
                return None
    try:
        return "warm" if os.path.isdir(directory) and os.listdir(directory) else "cold"
    except OSError:
        return "cold"


# --------------------------------------------------------------------------------------------
# trace map and runtime events (what Dynamo traced, where it broke, crashed or recompiled)

TRACE_SOURCE_ARTIFACT = "trace_source"
# torch 2.2 through 2.11: "TRACE starts_line /abs/file.py:12 in forward (forward) (inline depth: 1)\n    <source>"
TRACE_STARTS_LINE = re.compile(r"TRACE starts_line (.+):(\d+) in \S+")
RECOMPILE_HEADER = re.compile(r"Recompiling function \S+ in (.+):(\d+)")
# A guard failure names the source line that installed the guard, its path cut to the last characters:
# "- 0/0: self.n == 0   # self.n += 1  # mp/h4/t2.py:6 in forward" (2.2 and 2.11).
FRAME_SKIPPED_IN_LOOP = "Skipping frame because there is a graph break in a for/while loop"
FRAME_SUMMARY = re.compile(r"<FrameSummary file (.+), line (\d+) in ")
LOGGED_BREAK_RECORD = re.compile(r"Graph break(:| in user code at | \(user stack suppressed)")
LOGGED_BREAK_AT = re.compile(r"in user code at (.+):(\d+)\s*$")
GUARD_ORIGIN = re.compile(r"#\s(?:.*\s)?#\s(\S+):(\d+) in \S+")


class TracedFiles:
    """Which traced files are the user's: every file but torch's own (torch, functorch), the standard library
    and the harness. Third-party libraries in site-packages stay: their authors are users of torch.compile."""

    def __init__(self, torch):
        torch_dirs = []
        if torch is not None:
            torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
            torch_dirs = [torch_dir + os.sep, os.path.join(os.path.dirname(torch_dir), "functorch") + os.sep]
        paths = sysconfig.get_paths()
        self.torch_dirs = tuple(torch_dirs)
        self.stdlib_dirs = tuple(
            os.path.abspath(paths[key]) + os.sep for key in ("stdlib", "platstdlib") if paths.get(key)
        )
        # A system or pyenv interpreter keeps site-packages inside its stdlib directory.
        self.site_dirs = tuple(
            os.path.abspath(paths[key]) + os.sep for key in ("purelib", "platlib") if paths.get(key)
        )
        self.cache = {}

    def is_user(self, filename):
        known = self.cache.get(filename)
        if known is None:
            known = self.classify(filename)
            self.cache[filename] = known
        return known

    def classify(self, filename):
        if not filename or filename.startswith("<"):
            return False
        path = os.path.abspath(filename)
        if path == HARNESS_FILE or path.startswith(self.torch_dirs):
            return False
        if path.startswith(self.site_dirs):
            return True
        return not path.startswith(self.stdlib_dirs)


class TraceRecorder(logging.Handler):
    """Every source line Dynamo traced, from the `trace_source` log artifact (a logging.Handler on its
    logger, not stderr scraping). The artifact logger is switched on directly and kept from propagating,
    so a large model's tens of thousands of TRACE lines are recorded without being printed; other
    artifacts enabled through set_logs are left alone."""

    def __init__(self, torch):
        super().__init__(level=logging.DEBUG)
        self.torch = torch
        self.lines = {}  # abs filename -> set of line numbers
        self.skipped_frames = []  # (file, line) of torch 2.2's frame skips for a break inside a loop
        self.available = None
        self.saved = []

    def emit(self, record):
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001
            return
        match = TRACE_STARTS_LINE.match(message)
        if match:
            self.lines.setdefault(os.path.abspath(match.group(1)), set()).add(int(match.group(2)))
        elif message.startswith(FRAME_SKIPPED_IN_LOOP):
            where = FRAME_SUMMARY.search(message)
            if where:
                self.skipped_frames.append((os.path.abspath(where.group(1)), int(where.group(2))))

    def logger_names(self):
        try:
            from torch._logging._internal import log_registry  # noqa: PLC0415 - torch 2.1+
            names = [name for name in log_registry.get_artifact_log_qnames() if name.endswith("__" + TRACE_SOURCE_ARTIFACT)]
        except Exception:  # noqa: BLE001 - no artifact registry on this torch
            names = []
        return names

    @contextlib.contextmanager
    def recording(self):
        names = self.logger_names()
        if self.available is None:
            self.available = bool(names)
        self.saved = []
        for name in names:
            logger = logging.getLogger(name)
            self.saved.append((logger, logger.level, logger.propagate))
            logger.setLevel(logging.DEBUG)
            logger.propagate = False
            logger.addHandler(self)
        # torch 2.2 reports a break inside a for/while loop only as an INFO record of this logger ("Skipping
        # frame because there is a graph break in a for/while loop"): the whole function then runs eagerly.
        if names:
            logger = logging.getLogger("torch._dynamo.symbolic_convert")
            self.saved.append((logger, logger.level, logger.propagate))
            if logger.getEffectiveLevel() > logging.INFO:
                logger.setLevel(logging.INFO)
            logger.addHandler(self)
        try:
            yield self
        finally:
            for logger, level, propagate in self.saved:
                logger.removeHandler(self)
                logger.setLevel(level)
                logger.propagate = propagate
            self.saved = []

    def traced(self, files):
        return {name: sorted(lines) for name, lines in sorted(self.lines.items()) if files.is_user(name)}


class BuildInputs:
    """The files building the case read, beyond the case file and the trace map: the modules imported while
    building it (the import system's module list before and after) and every file opened for reading
    (`sys.addaudithook`'s "open" event: config YAMLs, label maps, weights). graphbreak's result cache
    (src/check/cache.rs) hashes them to decide whether a stored result still holds. Torch's own files, the
    standard library and the harness are left out (the interpreter and torch build are in the key), and so
    are .pyc files (derived from sources) and files the case opened for writing.

    `ran`: the Python functions that ran while building the case and in its eager reference step (a
    `sys.settrace` function that sees each call and traces no line), so the cache can leave out of an
    imported module's key the bodies of its functions that never ran: a library's other models."""

    def __init__(self):
        self.active = False
        self.hooked = False
        self.modules_before = None
        self.opened = set()
        self.written = set()
        self.imported = set()
        self.failed = None
        self.ran = set()  # code objects
        self.calls_unseen = None  # why `ran` is unknown
        self.monitoring_tool = None  # the sys.monitoring tool id while watching (3.12+)

    def call(self, frame, event, arg):
        self.ran.add(frame.f_code)
        # No local trace function: lines, returns and exceptions are not traced.

    def started(self, code, offset):
        self.ran.add(code)
        # Seen once is enough: this code object's start costs nothing from now on.
        return sys.monitoring.DISABLE

    def watch_calls(self, on):
        """Starts (on=True) or stops seeing calls. Python 3.12+: sys.monitoring's PY_START, disabled per
        code object once seen (near free); older: a sys.settrace function called on every Python call
        (the build and the eager step run slower under it). Never displaces another tool or trace
        function (a debugger's, coverage's): then `ran` is unknown."""
        if self.calls_unseen is not None:
            return
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            if on and self.monitoring_tool is None:
                for tool in (monitoring.COVERAGE_ID, monitoring.PROFILER_ID, 3, 4):
                    if monitoring.get_tool(tool) is None:
                        monitoring.use_tool_id(tool, "graphbreak")
                        monitoring.register_callback(tool, monitoring.events.PY_START, self.started)
                        monitoring.set_events(tool, monitoring.events.PY_START)
                        self.monitoring_tool = tool
                        return
                self.calls_unseen = "every sys.monitoring tool id is taken"
            elif not on and self.monitoring_tool is not None:
                tool, self.monitoring_tool = self.monitoring_tool, None
                monitoring.set_events(tool, 0)
                monitoring.register_callback(tool, monitoring.events.PY_START, None)
                monitoring.free_tool_id(tool)
            return
        if on:
            if sys.gettrace() is not None:
                self.calls_unseen = "another trace function is set"
            else:
                sys.settrace(self.call)
        elif sys.gettrace() == self.call:
            sys.settrace(None)

    def audit(self, event, args):
        # Runs on every audited event in the process: keep the inactive path a single test.
        if not self.active or event != "open":
            return
        try:
            path, flags = args[0], args[2]
            if isinstance(path, int):
                return
            path = os.path.abspath(os.fsdecode(path))
            if isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR):
                self.written.add(path)
            else:
                self.opened.add(path)
        except Exception as error:  # noqa: BLE001 - an audit hook must never break the open it watches
            self.failed = "%s: %s" % (type(error).__name__, error)

    def start(self):
        self.modules_before = set(sys.modules)
        if not self.hooked:
            try:
                sys.addaudithook(self.audit)
                self.hooked = True
            except Exception as error:  # noqa: BLE001
                self.failed = "sys.addaudithook: %s: %s" % (type(error).__name__, error)
        self.active = True
        self.watch_calls(True)

    def stop(self):
        if not self.active:
            return
        self.active = False
        self.watch_calls(False)
        for name in set(sys.modules) - (self.modules_before or set()):
            filename = getattr(sys.modules.get(name), "__file__", None)
            if isinstance(filename, str) and filename:
                self.imported.add(os.path.abspath(filename))

    def facts(self, files):
        """The result's `build_inputs`: user files only (`files`: TracedFiles), sorted; None before start."""
        if self.modules_before is None:
            return None

        def keep(path):
            return (
                files.is_user(path)
                and not path.endswith((".pyc", ".pyo"))
                and not path.startswith(("/proc/", "/sys/", "/dev/"))
                and path not in self.written
            )

        return {
            "imported": sorted(p for p in self.imported if keep(p)),
            "opened": sorted(p for p in self.opened if keep(p) and p not in self.imported),
            "ran": self.ran_functions(files),
            "complete": self.hooked and self.failed is None,
        }

    def ran_functions(self, files):
        """{file: [[first line, name], ...]} of the functions that ran, user files only; None: unknown."""
        if self.calls_unseen is not None:
            return None
        ran = {}
        for code in self.ran:
            filename = code.co_filename
            if filename and not filename.startswith("<"):
                ran.setdefault(os.path.abspath(filename), set()).add((code.co_firstlineno, code.co_name))
        return {
            name: [list(entry) for entry in sorted(entries)]
            for name, entries in sorted(ran.items())
            if files.is_user(name)
        }


def innermost_traced_frame(frames, files):
    """(filename, line) of the innermost frame ("file:line" strings, innermost last) in a user file."""
    for frame in reversed(frames or []):
        filename, _, line = str(frame).rpartition(":")
        if filename and line.isdigit() and files.is_user(filename):
            return os.path.abspath(filename), int(line)
    return None, None


def recompile_site(message):
    """(filename, line) of one 'Recompiling function ...' message: the line whose guard failed when the
    message names it (its path is cut short: matched against the function's file), else the def line."""
    header = RECOMPILE_HEADER.match(message)
    if not header:
        return None, None
    filename, line = os.path.abspath(header.group(1)), int(header.group(2))
    for origin in GUARD_ORIGIN.finditer(message):
        if filename.endswith(origin.group(1).lstrip(".")):
            return filename, int(origin.group(2))
    return filename, line


def reason_text_start(message):
    """Where the reason text of a 2.11 graph_breaks record starts (None: older format). A record saying
    'Failed to handle graph break gracefully. Skipping the function and falling back to eager. Graph break
    encountered: <the break>' reports the break that made Dynamo give up on the whole frame: its reason and
    code are the inner ones."""
    marker = message.find("Graph Break Reason:")
    if marker < 0:
        return None
    skipped = message.find("Graph break encountered:", marker)
    if skipped >= 0:
        return skipped + len("Graph break encountered:")
    return marker + len("Graph Break Reason:")


def logged_breaks(messages, files):
    """Graph breaks of the compile phase from its graph_breaks log, each at the innermost frame of its user
    code traceback that lies in a user file: [(file, line, gb_code, reason, {(file, line) of every frame})].
    Formats: 2.11 'Graph break in user code at F:L' + 'Graph Break Reason:' + 'User code traceback:' (a
    repeat says 'user stack suppressed' and names only F:L); 2.2 'Graph break: REASON from user code at:'."""
    found = []
    # A repeat names only the header location ('user stack suppressed'): where its first record landed.
    chosen = {}
    for message in messages:
        # 2.11 also logs a hint ('Graph break from `Tensor.item()`, consider setting: ...') for a break
        # that has its own record: not a break of its own.
        if not LOGGED_BREAK_RECORD.match(message):
            continue
        marker = max(message.find("User code traceback:"), message.find("from user code at:"))
        frames = [
            (os.path.abspath(name), int(line))
            for name, line in FROM_USER_CODE_FRAME.findall(message[marker:] if marker >= 0 else "")
        ]
        user_frames = [frame for frame in frames if files.is_user(frame[0])]
        header = LOGGED_BREAK_AT.search(first_line(message))
        header = (os.path.abspath(header.group(1)), int(header.group(2))) if header else None
        if user_frames:
            location = user_frames[-1]
            if header is not None:
                chosen.setdefault(header, location)
        elif header is not None and header in chosen:
            location = chosen[header]
        elif header is not None and files.is_user(header[0]):
            location = header
        else:
            continue
        reason = None
        reason_start = reason_text_start(message)
        if reason_start is not None:
            for text in message[reason_start:].splitlines():
                stripped = text.strip()
                if stripped and not stripped.startswith("Encountered graph break"):
                    reason = stripped
                    break
        else:
            old_style = re.match(r"Graph break: (.*?) from user code at:", message, re.DOTALL)
            if old_style:
                reason = first_line(old_style.group(1))
        code = GB_CODE_PATTERN.search(message, reason_start or 0)
        code = code or GB_CODE_PATTERN.search(message)
        found.append((location[0], location[1], ("GB" + code.group(1)) if code else None,
                      truncate(reason or first_line(message), REASON_LIMIT), set(frames) | {location}))
    return found


def crash_location(torch, error):
    """(filename, line) of a compile error in the innermost traced file (third-party included). Raised in
    bytecode Dynamo rewrote after a break (torch ≤ 2.5), the traceback names the `def` line of the
    (resumed) frame; the statement then comes from Dynamo's original code, as for the result's `error`."""
    files = TracedFiles(torch)
    filename, line = locate_error(error, files)
    frame = innermost_user_traceback_frame(error, files)
    if frame is not None and (filename, line) == (frame[0], frame[2]):
        filename, line = statement_in_rewritten_frame(torch, error, files) or (filename, line)
    return filename, line


def runtime_events(result, recompile_messages, compile_error, files, break_messages=None, skipped_frames=None,
                   compile_error_location=None):
    """One entry per runtime event: graph breaks, the compile crash, recompiles. Repeats at the same (kind,
    file, line, reason) are one entry with a count.

    Breaks come from the real compile's graph_breaks log (`break_messages`): its traceback reaches the
    innermost frame, where explain()'s user stack can stop at a caller (gpt2's `loss = self.loss_function(`
    for a logger.warning_once inside the property, reason 'step_unsupported'). explain()'s breaks are added
    where no logged break passes through their line (a compile that crashed early logs fewer breaks)."""
    events = []
    logged = logged_breaks(break_messages or [], files)
    logged_frames = set()
    for filename, line, gb_code, reason, frames in logged:
        events.append(("break", filename, line, gb_code, reason))
        logged_frames |= frames
    for filename, line in skipped_frames or []:
        if (filename, line) not in logged_frames and files.is_user(filename):
            events.append(("break", filename, line, None, "graph break in a for/while loop: the frame was skipped"))
    for graph_break in result.get("graph_breaks") or []:
        filename, line = innermost_traced_frame(graph_break.get("frames"), files)
        if filename is None:
            filename, line = graph_break.get("filename"), graph_break.get("line")
        if filename is not None and (os.path.abspath(filename), line) in logged_frames:
            continue
        events.append(("break", filename, line, graph_break.get("gb_code"), graph_break.get("reason")))
    if compile_error is not None and result.get("status") == "compile_error":
        filename, line = compile_error_location or locate_error(compile_error, files)
        if filename is None:
            error = result.get("error") or {}
            filename, line = error.get("filename"), error.get("line")
        text = "%s: %s" % (type(compile_error).__name__, first_line(compile_error))
        code = GB_CODE_PATTERN.search(str(compile_error))
        events.append(("crash", filename, line, ("GB" + code.group(1)) if code else None, truncate(text, REASON_LIMIT)))
    for message in recompile_messages:
        filename, line = recompile_site(message)
        # The guard's value changes every time (self.n == 0, == 1, ...): one site, one event.
        events.append(("recompile", filename, line, None, recompile_reason(message)))
    merged = {}
    for kind, filename, line, gb_code, reason in events:
        if filename is not None:
            filename = os.path.abspath(filename)
        key = (kind, filename, line, reason if kind != "recompile" else None)
        if key in merged:
            merged[key]["count"] += 1
        else:
            merged[key] = {"kind": kind, "filename": filename, "line": line, "gb_code": gb_code,
                           "reason": reason, "count": 1}
    return list(merged.values())


class TraceFacts:
    """The run's trace map and runtime events, kept apart from the phases that feed them."""

    def __init__(self):
        self.recorder = None
        self.compile_log = None
        self.compile_error = None
        # crash_location(compile_error), taken when the compile failed.
        self.compile_error_location = None

    @contextlib.contextmanager
    def recording(self, torch, compile_log=None):
        if self.recorder is None:
            self.recorder = TraceRecorder(torch)
        if compile_log is not None:
            self.compile_log = compile_log
        with self.recorder.recording():
            yield

    def attach(self, result, torch, classifier):
        """Writes `traced` (null when this torch has no trace_source artifact) and `runtime_events`."""
        if self.recorder is None or torch is None:
            return
        files = TracedFiles(torch)
        result["traced"] = self.recorder.traced(files) if self.recorder.available else None
        messages = list(self.compile_log.recompile_messages) if self.compile_log is not None else []
        # A recompile attempt that hits the limit compiles nothing: not an event of its own.
        limit_hits = len(self.compile_log.limit_messages) if self.compile_log is not None else 0
        messages = messages[: max(0, len(messages) - limit_hits)]
        breaks = list(self.compile_log.graph_break_messages) if self.compile_log is not None else []
        result["runtime_events"] = runtime_events(
            result, messages, self.compile_error, files, breaks, self.recorder.skipped_frames,
            self.compile_error_location,
        )


# --------------------------------------------------------------------------------------------
# the run


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


class Run:
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

    # -- parity (float64 reference, comparable RNG, eager's own error as the yardstick)

    def parity_reference(self, case, stepper):
        """The reference compiled and eager results are both judged against (eager's own error is the
        yardstick): the checked step in float64 (modules and inputs cast, no autocast), from the same state
        and seeds as eager. A model that cannot run in float64 (it hard-codes float32 somewhere: "expected
        scalar type Double but found Float") gets the same step in float32 with autocast off (a bf16/fp16
        model upcast) when eager ran below float32: still more precise than eager, so the same ratio rule
        holds. Stored as self.reference = (outputs, loss, grads) on the CPU; None when eager ran in
        float32 already and float64 failed (eager is then the only reference: allclose decides).
        `parity_reference` names the reference, `parity_reference_failed` why each better one failed."""
        torch = self.torch
        self.reference = None
        failed = {}
        used = "eager"
        for name in ("float64", "float32"):
            if name == "float32" and not runs_below_float32(torch, case, stepper):
                failed["float32"] = "eager itself ran in float32: not a more precise reference"
                break
            try:
                self.reference = self.reference_step(case, stepper, getattr(torch, name))
                used = name
                break
            except Exception as error:  # noqa: BLE001 - a model that cannot run in a dtype is a fact, not a failure
                failed[name] = "%s: %s" % (type(error).__name__, first_line(error)[:200])
        self.result["parity_reference"] = used
        self.result["parity_reference_failed"] = failed or None
        if "float64" in failed:
            self.note(
                "no float64 reference (%s): parity is judged against %s" % (
                    failed["float64"],
                    "a float32 run with autocast off" if used == "float32"
                    else "eager alone (eager vs compiled must be allclose)",
                )
            )

    def reference_step(self, case, stepper, dtype):
        """The checked step with modules and inputs cast to `dtype` and no autocast; (outputs, loss,
        grads) on the CPU. Raises what the model raises in that dtype."""
        torch = self.torch
        model, args, kwargs = case["model"], case["args"], case["kwargs"]
        cast_args, cast_kwargs = floating_cast_to(torch, args, dtype), floating_cast_to(torch, kwargs, dtype)
        try:
            self.initial_state.restore()
            with modules_cast_to(torch, stepper.modules, dtype):
                stepper.reference_run = True
                try:
                    reset_seeds(torch)
                    outputs, loss = stepper.step(model, cast_args, cast_kwargs)
                    grads = stepper.grads(cast_args, cast_kwargs) if stepper.training else {}
                    return to_cpu(torch, (outputs, loss, grads))
                finally:
                    stepper.reference_run = False
                    stepper.zero_grads(cast_args, cast_kwargs)
        finally:
            self.initial_state.restore()

    @contextlib.contextmanager
    def comparable_rng(self, effective):
        """A step that draws random numbers (dropout) gets torch._inductor.config.fallback_random=True for
        its compile, as PyTorch's benchmark runner does for accuracy checks: Inductor then calls the same
        RNG ops as eager, so a seeded compiled step draws the same numbers. It is set at compile time and
        stays for the timed steps (one compile, not two); the note says so."""
        config = None
        if self.result.get("step_uses_rng") and effective.get("backend") == "inductor":
            try:
                import torch._inductor.config as config  # noqa: PLC0415
            except Exception:  # noqa: BLE001
                config = None
        if config is None or not hasattr(config, "fallback_random"):
            self.result["fallback_random"] = False if self.result.get("step_uses_rng") else None
            yield
            return
        previous = config.fallback_random
        config.fallback_random = True
        self.result["fallback_random"] = True
        self.note(
            "the step draws random numbers (dropout, rand): compiled with "
            "torch._inductor.config.fallback_random=True so eager and compiled draw the same ones "
            "(also for the timed steps: Inductor's own RNG kernels were not timed)"
        )
        try:
            yield
        finally:
            config.fallback_random = previous

    def compare(
        self, case, stepper, eager_reference, eager_grads, compiled_outputs, compiled_loss, args, kwargs,
        compiled_grads=None,
    ):
        """`compiled_grads`: the compiled step's gradients when captured already (CPU), else read now."""
        torch = self.torch
        result = self.result
        expected_outputs, expected_loss = eager_reference
        atol, rtol = default_tolerances(torch, expected_outputs, stepper.autocast_dtype)
        if case.get("atol") is not None:
            atol = float(case["atol"])
        if case.get("rtol") is not None:
            rtol = float(case["rtol"])
        result["atol"], result["rtol"] = atol, rtol
        reference = self.reference
        reference_outputs, reference_loss, reference_grads = reference if reference is not None else (None, None, None)
        reference_name = result.get("parity_reference") or "eager"
        low_precision = stepper.autocast_dtype in (torch.float16, torch.bfloat16)
        check = ParityCheck(torch, atol, rtol, low_precision, reference_name)
        check.walk("output", expected_outputs, to_cpu(torch, compiled_outputs), reference_outputs)
        if expected_loss is not None:
            check.walk("loss", expected_loss, to_cpu(torch, compiled_loss), reference_loss)
        result["max_abs_diff"] = check.max_abs
        result["max_rel_diff"] = check.max_rel
        result["parity_outputs"] = check.entries[:PARITY_ENTRY_LIMIT]
        if len(check.entries) > PARITY_ENTRY_LIMIT:
            self.note("parity: %d outputs compared, the first %d listed" % (len(check.entries), PARITY_ENTRY_LIMIT))
        parity_ok = check.ok
        problems = list(check.problems())
        if stepper.training:
            if compiled_grads is None:
                compiled_grads = to_cpu(torch, stepper.grads(args, kwargs))
            grad_check = ParityCheck(torch, atol, rtol, low_precision, reference_name)
            none_vs_zero = one_sided_zero_grads(torch, eager_grads, compiled_grads)
            non_zero_one_sided = sorted(set(eager_grads) ^ set(compiled_grads) - set(none_vs_zero))
            if non_zero_one_sided:
                grad_check.mismatch("grad", "eager has gradients for %d tensors, compiled for %d (%d non-zero on one "
                                    "side only, e.g. %s)" % (len(eager_grads), len(compiled_grads),
                                                             len(non_zero_one_sided), non_zero_one_sided[0]))
            for name in sorted(set(eager_grads) & set(compiled_grads)):
                grad_reference = reference_grads.get(name) if isinstance(reference_grads, dict) else None
                grad_check.walk("grad[%s]" % name, eager_grads[name], compiled_grads[name], grad_reference)
            summary = summarize_grad_parity(grad_check, len(none_vs_zero))
            result["parity_grads"] = summary
            # None, not 0.0, when nothing was compared: 0.0 would claim identical gradients.
            result["grad_max_abs_diff"] = summary["max_abs_diff"] if summary["compared"] else None
            if not eager_grads:
                self.note("training case without gradients to compare: no parameter requiring grad was "
                          "found in the model (or the modules its callable uses) nor among the inputs")
            parity_ok = parity_ok and grad_check.ok
            problems.extend(grad_check.problems())
        metric_function = case.get("metric")
        if metric_function is not None and result["metric_eager"] is not None:
            metric_compiled = float(metric_function(compiled_outputs))
            result["metric_compiled"] = metric_compiled
            difference = abs(metric_compiled - result["metric_eager"])
            if not difference <= atol + rtol * abs(result["metric_eager"]):
                parity_ok = False
                problems.append("metric: %r vs %r" % (result["metric_eager"], metric_compiled))
        result["parity_ok"] = parity_ok
        for problem in problems[:5]:
            self.note("parity: " + problem)


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


# --------------------------------------------------------------------------------------------
# fork server: `harness.py serve TOKEN` imports torch (with Dynamo) once, then forks one child per case


class ServedCase:
    """What a forked child knows about how it was started (Run.record_interpreter_start)."""

    def __init__(self, fork_seconds):
        self.fork_seconds = fork_seconds


def worker_marker(token, kind, payload):
    """One control record on the server's stdout/stderr, written with a single os.write (atomic on a
    pipe below PIPE_BUF), so a child's output around it stays whole. Rust strips these from the tails."""
    return ("\x1egraphbreak-worker:%s:%s %s\n" % (token, kind, json.dumps(json_safe(payload)))).encode("utf-8")


def fork_unsafe_reason(torch, torch_error):
    """Why forking cases from this process would not be safe (None: it is). A Python thread alive after
    the imports may hold a lock (logging, import) that a forked child would wait on forever; CUDA cannot be
    used in a child forked after the parent initialized it. Native library pools (NumPy's OpenBLAS after
    `import torch`) shut themselves down around fork (pthread_atfork) and are only counted."""
    if not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return "the fork server needs Linux (this is %s)" % sys.platform
    if torch is None:
        return "torch cannot be imported: %s" % torch_error
    threads = threading_alive()
    if len(threads) > 1:
        return "%d Python threads alive after importing torch (%s)" % (len(threads), ", ".join(threads))
    cuda = getattr(torch, "cuda", None)
    try:
        if cuda is not None and cuda.is_initialized():
            return "CUDA was initialized while importing torch"
    except Exception:  # noqa: BLE001 - a torch without the query: nothing initialized it here
        pass
    return None


def forked_child_cannot_use_cuda(torch):
    """Forks a throw-away child that creates a CUDA context. Importing torch does not initialize CUDA,
    but a library's `torch.cuda.is_available()` at import (cudaGetDeviceCount) starts the driver, which a
    forked child then cannot use; torch.cuda.is_initialized() does not see that. None: the child could
    (or there is no CUDA at all, which every case then reports itself); else the reason."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            if not torch.cuda.is_available() or torch.zeros(1, device="cuda").add_(1).item() == 1.0:
                code = 0
        except BaseException:  # noqa: BLE001 - any failure means: do not fork cases that need CUDA
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status == 0:
        return None
    return "a forked child could not initialize CUDA (wait status %d): CUDA was touched while importing" % status


def threading_alive():
    threading = sys.modules.get("threading")
    if threading is None:
        return ["MainThread"]
    return [thread.name for thread in threading.enumerate()]


def native_thread_count():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def die_with_parent():
    """Linux: the child gets SIGKILL when the server dies (the server itself dies with graphbreak)."""
    try:
        import ctypes  # noqa: PLC0415 - only in forked children

        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except Exception:  # noqa: BLE001 - without it the child still dies with its process group
        pass


def serve_child(command, ready_at, server_pid, token):
    """The forked child: its own process group (Rust's timeout kills the group), the case's cwd (its
    environment is the server's, started with the lane's), then the same run as `harness.py run`. Once
    the result file is final it says `done` (on stderr, then stdout): graphbreak moves on while this
    process exits — tearing down a CUDA context that held gigabytes takes seconds, and overlaps the next
    case. Never returns."""
    code = 70
    try:
        started = time.time()
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
        die_with_parent()
        if os.getppid() != server_pid:
            os._exit(code)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.chdir(command["cwd"])
        sent_at = float(command.get("sent_at") or started)
        fork_seconds = max(0.0, started - max(sent_at, ready_at))
        code = run_command(command["request"], command["result"], ServedCase(fork_seconds))
        sys.stdout.flush()
        sys.stderr.flush()
        done = {"n": command.get("n"), "code": code}
        os.write(2, worker_marker(token, "done", done))
        os.write(1, worker_marker(token, "done", done))
    except BaseException:  # noqa: BLE001 - the child must end here, never return into the server loop
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve_command(token, device="auto"):
    """Reads one JSON command per line on stdin ({"n", "request", "result", "cwd", "sent_at"}) and
    forks a child per command; reports `ready` once, then per case `start` (child pid), the child's own
    `done` (result final) and `end` (raw wait status, after the exit) as marker records (worker_marker).
    A child may still be exiting when the next command comes: children are reaped as they end. Exits at
    EOF on stdin or when forking is unsafe. The server's start-up (interpreter, torch import, the CUDA
    check) is in `ready`; graphbreak reports it once per server."""
    import select  # noqa: PLC0415
    import signal  # noqa: PLC0415

    phases = {}
    spawned = os.environ.get("GRAPHBREAK_SPAWNED_AT")
    try:
        seconds = HARNESS_LOADED_AT - float(spawned)
        if 0.0 <= seconds < 3600.0:
            phases["interpreter_start"] = round(seconds, 4)
    except (TypeError, ValueError):
        pass
    started = time.perf_counter()
    torch, torch_error = import_torch(with_dynamo=True)
    phases["torch_import"] = round(time.perf_counter() - started, 4)
    reason = fork_unsafe_reason(torch, torch_error)
    if reason is None and device != "cpu":
        started = time.perf_counter()
        reason = forked_child_cannot_use_cuda(torch)
        phases["cuda_check"] = round(time.perf_counter() - started, 4)
    ready_at = time.time()
    server_pid = os.getpid()
    ready = {
        "fork_safe": reason is None, "reason": reason, "phases": phases, "pid": server_pid,
        "native_threads": native_thread_count(),
    }
    sys.stdout.flush()
    sys.stderr.flush()
    os.write(1, worker_marker(token, "ready", ready))
    if reason is not None:
        return 0
    running = {}
    pending = b""
    while True:
        while running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                running.clear()
                break
            if pid == 0:
                break
            number = running.pop(pid, None)
            try:
                os.killpg(pid, signal.SIGKILL)  # compile workers the case left behind
            except OSError:
                pass
            os.write(2, worker_marker(token, "end", {"n": number}))
            os.write(1, worker_marker(token, "end", {"n": number, "status": status}))
        readable, _, _ = select.select([0], [], [], 0.02 if running else 1.0)
        if not readable:
            continue
        chunk = os.read(0, 65536)
        if not chunk:
            return 0
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if not line.strip():
                continue
            command = json.loads(line.decode("utf-8"))
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                serve_child(command, ready_at, server_pid, token)
            try:
                os.setpgid(pid, pid)  # also here: the group must exist before graphbreak learns the pid
            except OSError:
                pass
            running[pid] = command.get("n")
            os.write(1, worker_marker(token, "start", {"n": command.get("n"), "pid": pid}))


USAGE = "usage: harness.py env | harness.py run REQUEST.json RESULT.json | harness.py serve TOKEN [DEVICE]"


def main(argv):
    if len(argv) == 2 and argv[1] == "env":
        return env_command()
    if len(argv) == 4 and argv[1] == "run":
        return run_command(argv[2], argv[3])
    if len(argv) in (3, 4) and argv[1] == "serve":
        return serve_command(*argv[2:])
    sys.stderr.write(USAGE + "\n")
    return 2


if __name__ == "__main__":
    exit_code = main(sys.argv)
    if len(sys.argv) > 1 and sys.argv[1] in ("run", "serve"):
        # The result file is written. Interpreter teardown with torch loaded (module finalizers, compile
        # worker pools) took seconds of every case's wall time; Rust kills whatever the case left running.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(exit_code)
    sys.exit(exit_code)
