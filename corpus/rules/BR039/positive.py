"""BR039 positives: a `with` over a constant in traced code.

Why: measured on torch 2.11 (backend="eager", fullgraph=True): Dynamo refuses a constant as a
context manager (GB0142 "Unsupported context manager") for an int, a string, `None` and a local
bound only to a constant. Eagerly each raises TypeError: `cases()` runs them compiled only.
"""

import torch
from torch import nn


@torch.compile(backend="eager")
def with_int(x):
    with 3:  # expect: BR039
        x = x + 1
    return x


@torch.compile(backend="eager")
def with_none(x):
    with None:  # expect: BR039
        x = x + 1
    return x


class Placeholder(nn.Module):
    def forward(self, x):
        ctx = None
        with ctx:  # expect: BR039
            return x + 1


@torch.compile(backend="eager")
def with_string(x):
    with "region":  # expect: BR039
        x = x + 1
    return x


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "int": (with_int.__wrapped__, (x,)),
        "none": (with_none.__wrapped__, (x,)),
        "local": (Placeholder(), (x,)),
        "string": (with_string.__wrapped__, (x,)),
    }
