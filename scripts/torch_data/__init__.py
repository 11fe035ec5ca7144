"""Generators of the torch knowledge tables under rules/data/, one module per source.

Each `gen_<table>.py` in this package reads the *installed* torch (stdlib + torch only) and defines

    TABLE: str        the table it writes: rules/data/<TABLE>.toml
    HEADER: str       the comment at the top of that table (what it holds, where it comes from)
    def generate() -> dict[str, dict]: entry name -> fields (JSON values) on this torch

`scripts/gen_torch_data.py` runs every generator under each interpreter it is given, then merges
the per-version outputs: entries with the same fields on the same versions are written together
with the torch range they hold for (`torch = ">=2.5,<2.8"`). Nothing here is hand-typed knowledge;
a generator that needs a judgment (which spelling of an op is public) derives it from torch.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import logging
import types
import warnings
from typing import Any, Callable, Iterator

# Public namespaces whose functions users call by their dotted name.
PUBLIC_NAMESPACES = (
    "torch",
    "torch.nn.functional",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "torch.random",
    "torch.autograd",
    "torch.autograd.graph",
    "torch.cuda",
    "torch.cpu",
    "torch.mps",
    "torch.xpu",
    "torch.mtia",
    "torch.accelerator",
    "torch.backends.cudnn",
    "torch.backends.cuda",
    "torch.backends.mps",
    "torch.amp",
    "torch.jit",
    "torch.compiler",
    "torch._dynamo",
    "torch._jit_internal",
    "torch._utils",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.nn.utils.rnn",
    "torch.utils.checkpoint",
    "torch.utils.data",
    "torch.distributed",
    "torch.sparse",
    "torch.nested",
    "torch.masked",
    "torch.func",
    "torch.overrides",
    "torch.hub",
    "torch.profiler",
    "torch.library",
    "torch.fx",
    "torch.export",
    "torch.onnx",
    "torch.testing",
)


def torch_version() -> str:
    import torch

    return torch.__version__.split("+")[0]


def public_members() -> Iterator[tuple[str, Any]]:
    """`(dotted name, object)` for every public name of the namespaces above that this torch has
    (a namespace missing on an older torch is skipped), in a stable order."""
    for namespace in PUBLIC_NAMESPACES:
        try:
            module = importlib.import_module(namespace)
        except Exception:  # noqa: BLE001 - an optional backend that fails to import has no API
            continue
        for name in sorted(vars(module)):
            if name.startswith("_"):
                continue
            with warnings.catch_warnings():
                # Deprecated aliases warn on access; they are still spellings users write.
                warnings.simplefilter("ignore")
                obj = getattr(module, name, None)
            yield f"{namespace}.{name}", obj


def public_functions() -> Iterator[tuple[str, Any]]:
    """`(dotted name, object)` for every public, non-class callable of the namespaces above."""
    for path, obj in public_members():
        if _is_torch_callable(obj):
            yield path, obj


def _is_torch_callable(obj: Any) -> bool:
    """A function-like callable: not a module or class; typing re-exports (Optional, Union, ...)
    are not torch functions."""
    return (
        obj is not None
        and not isinstance(obj, types.ModuleType)
        and not inspect.isclass(obj)
        and callable(obj)
        and getattr(obj, "__module__", None) != "typing"
    )


def _torch_module(obj: Any) -> bool:
    return isinstance(obj, types.ModuleType) and (
        obj.__name__ == "torch" or obj.__name__.startswith("torch.")
    )


def reachable_callables() -> Iterator[tuple[str, Any]]:
    """`(dotted name, object)` for every callable reachable as an attribute path from the public
    namespaces that users spell in code, private names included: the namespaces' own functions
    (`torch._assert`), the functions of a private module a namespace holds under another name
    (`torch.nn.functional._Reduction.get_enum`, i.e. `torch.nn._reduction.get_enum`), and the
    staticmethods and classmethods of the classes they hold (`torch.Size`'s, a private helper
    class's). Dunder names are left out. Each object is named by the spellings it has here."""
    with warnings.catch_warnings():
        # Deprecated aliases warn on access; they are still spellings users write.
        warnings.simplefilter("ignore")
        yield from _reachable_callables()


def _reachable_callables() -> Iterator[tuple[str, Any]]:
    for namespace in PUBLIC_NAMESPACES:
        try:
            module = importlib.import_module(namespace)
        except Exception:  # noqa: BLE001 - an optional backend that fails to import has no API
            continue
        for name in sorted(vars(module)):
            if name.startswith("__"):
                continue
            obj = getattr(module, name, None)
            path = f"{namespace}.{name}"
            if _is_torch_callable(obj):
                yield path, obj
            elif inspect.isclass(obj):
                yield from _class_callables(path, obj)
            elif (
                _torch_module(obj)
                and name.startswith("_")
                and obj.__name__ not in PUBLIC_NAMESPACES
                and obj.__name__ != path
            ):
                # A private module under another name: `F._Reduction` is `torch.nn._reduction`.
                # Both spellings are reachable; the namespace's is the one code writes.
                for inner in sorted(vars(obj)):
                    if inner.startswith("__"):
                        continue
                    value = getattr(obj, inner, None)
                    if _is_torch_callable(value) and getattr(value, "__module__", None) == obj.__name__:
                        yield f"{path}.{inner}", value
                        yield f"{obj.__name__}.{inner}", value


def _class_callables(path: str, cls: type) -> Iterator[tuple[str, Any]]:
    """The staticmethods and classmethods defined on `cls` itself (not inherited), as
    `path.name` with the callable they give on attribute access."""
    if not (getattr(cls, "__module__", "") or "").startswith("torch"):
        return
    for name, raw in sorted(vars(cls).items()):
        if name.startswith("__") or not isinstance(raw, (staticmethod, classmethod)):
            continue
        value = getattr(cls, name, None)
        if value is not None and callable(value):
            yield f"{path}.{name}", value


@contextlib.contextmanager
def measuring() -> Iterator[None]:
    """Torch's logging off and warnings ignored while a generator compiles its samples (each
    compile logs and warns); both come back afterwards."""
    logging.disable(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.disable(logging.NOTSET)


def measure_each_class(candidates: dict[str, type], measure: Callable[[type], Any]) -> Iterator[tuple[str, Any]]:
    """(name, measure(cls)) for every public spelling of every candidate class, measuring each
    class once (`torch.no_grad` and `torch.autograd.no_grad` are one class)."""
    measured: dict[int, Any] = {}
    for name, cls in candidates.items():
        if id(cls) not in measured:
            measured[id(cls)] = measure(cls)
        yield name, measured[id(cls)]
