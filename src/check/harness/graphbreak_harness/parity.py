"""Parity: comparing compiled results with eager's against a reference (ParityCheck)."""

import contextlib
import math
import sys

from .case import iter_tensors, map_tensors
from .records import DEFAULT_TOLERANCES, truncate


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
