"""Running steps (Stepper) and timing them."""

import contextlib
import time

from .case import CaseError, iter_tensors
from .parity import find_modules
from .records import UNSTABLE_SPREAD


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
