"""BR033 positives: `.data` stored on a tensor the compiled frame computed.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager", fullgraph=True): Dynamo mutates
`.data` only of a tensor it can name outside the frame; a computed tensor has no source, so the
store is a graph break (2.8+: GB0056 "Failed to mutate tensor data attribute").
"""

import torch
from torch import nn


@torch.compile(backend="eager")
def scoped_zeros(x):
    z = torch.zeros(4)
    z.data = x.data  # expect: BR033
    return z * x


@torch.compile(backend="eager")
def detached_copy(x):
    y = x.detach()
    y.data = torch.ones(4)  # expect: BR033
    return y + 1


@torch.compile(backend="eager")
def op_result(x: torch.Tensor):
    z = x * 2
    z.data = x  # expect: BR033
    return z + 1


class Slices(nn.Module):
    def forward(self, x: torch.Tensor):
        head = x[0:2]
        head.data = torch.ones(2)  # expect: BR033
        return head + 1


model = torch.compile(Slices(), backend="eager")


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "factory_result": (scoped_zeros.__wrapped__, (x,)),
        "detached_input": (detached_copy.__wrapped__, (x,)),
        "op_result": (op_result.__wrapped__, (x,)),
        "slice_of_input": (Slices(), (x,)),
    }
