"""The case: loading its factory, normalizing what it returns, compile options, tensor walks."""

import importlib.util
import os
import sys


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
