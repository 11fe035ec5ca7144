"""BR040 negatives: near misses of comparing a sequence of tensors.

Why: measured on torch 2.11 (backend="eager", fullgraph=True), each compiles whole: a tuple of
Python ints from shapes; sequences of different lengths (Python and Dynamo answer False without
comparing elements); a first element that is a Python int and differs (the tensor is
never compared).
"""

import torch


@torch.compile(backend="eager")
def shape_ints(x):
    pad = (x.shape[0] - 4, 0)
    if pad == (0, 0):
        return x
    return x + 1


@torch.compile(backend="eager")
def other_length(x):
    pad = (x.sum(), x.mean())
    if pad == (0, 0, 0):
        return x + 1
    return x


@torch.compile(backend="eager")
def int_first(x):
    key = (1, x.sum())
    if key == (0, 0):
        return x + 1
    return x


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "shape_ints": (shape_ints.__wrapped__, (x,)),
        "other_length": (other_length.__wrapped__, (x,)),
        "int_first": (int_first.__wrapped__, (x,)),
    }
