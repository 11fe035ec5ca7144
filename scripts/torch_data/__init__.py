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

import importlib
import inspect
import types
import warnings
from typing import Any, Iterator

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


def public_functions() -> Iterator[tuple[str, Any]]:
    """`(dotted name, object)` for every public, non-class callable of the namespaces above that
    this torch has (a namespace missing on an older torch is skipped)."""
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
                wanted = (
                    obj is not None
                    and not isinstance(obj, types.ModuleType)
                    and not inspect.isclass(obj)
                    and callable(obj)
                    # typing re-exports (Optional, Union, ...) are not torch functions.
                    and getattr(obj, "__module__", None) != "typing"
                )
            if wanted:
                yield f"{namespace}.{name}", obj
