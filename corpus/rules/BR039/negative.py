"""BR039 negatives: near misses of a constant context manager.

Why: measured on torch 2.11 (backend="eager", fullgraph=True), each compiles whole: a placeholder
rebound to a real context manager on the path that reaches the `with` (`ctx = None`, then
`ctx = nullcontext()`), `contextlib.nullcontext()`, `torch.no_grad()`, a local bound to one of two context managers.
"""

import contextlib

import torch


@torch.compile(backend="eager")
def rebound(x, use_grad: bool = False):
    ctx = None
    if not use_grad:
        ctx = torch.no_grad()
    else:
        ctx = contextlib.nullcontext()
    with ctx:
        return x + 1


@torch.compile(backend="eager")
def null_context(x):
    with contextlib.nullcontext():
        return x + 1


@torch.compile(backend="eager")
def no_grad(x):
    with torch.no_grad():
        return x * 2


@torch.compile(backend="eager")
def one_of_two(x, enabled: bool = True):
    ctx = torch.enable_grad() if enabled else torch.no_grad()
    with ctx:
        return x + 1


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "rebound": (rebound.__wrapped__, (x,)),
        "null_context": (null_context.__wrapped__, (x,)),
        "no_grad": (no_grad.__wrapped__, (x,)),
        "one_of_two": (one_of_two.__wrapped__, (x,)),
    }
