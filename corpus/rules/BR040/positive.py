"""BR040 positives: a tuple or list holding tensors compared element by element in traced code.

Why: measured on torch 2.11 (backend="eager", fullgraph=True): comparing `(t0, t1) == (0, 0)`
needs `t0 == 0` as a bool, a tensor's truth: GB0170 "Data-dependent branching", in an `if`, an
`if` expression, with `!=`, for lists, with no branch at all, and for a tuple against a list
(which Python answers False without comparing; Dynamo compares the elements).
"""

import torch
from torch import nn


class PadIfNeeded(nn.Module):
    def forward(self, x):
        pad = (x.sum() * 0, x.mean() * 0)
        if pad == (0, 0):  # expect: BR040
            return x
        return x + 1


@torch.compile(backend="eager")
def not_equal(x):
    pad = (x.sum() * 0, x.mean() * 0)
    return x if pad != (0, 0) else x + 1  # expect: BR040


@torch.compile(backend="eager")
def lists(x):
    pad = [x.sum() * 0, 0]
    if pad == [0, 0]:  # expect: BR040
        return x
    return x + 1


@torch.compile(backend="eager")
def inline(x):
    same = (x.amax(), x.amin()) == (1, 1)  # expect: BR040
    return x + 1 if same else x


@torch.compile(backend="eager")
def tuple_against_list(x):
    pad = (x.sum(), x.mean())
    if pad == [0, 0]:  # expect: BR040
        return x + 1
    return x


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "if": (PadIfNeeded(), (x,)),
        "not_equal": (not_equal.__wrapped__, (x,)),
        "lists": (lists.__wrapped__, (x,)),
        "inline": (inline.__wrapped__, (x,)),
        "tuple_against_list": (tuple_against_list.__wrapped__, (x,)),
    }
