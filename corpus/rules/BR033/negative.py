"""BR033 negatives: `.data` stores Dynamo traces, and `.data` reads.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager", fullgraph=True): a store on an
input, a parameter or a buffer (same dtype) traces as `Tensor.set_`; reading `.data` and
`t.data.copy_(...)` on a computed tensor trace too.
"""

import torch
from torch import nn


@torch.compile(backend="eager")
def store_on_input(x):
    x.data = torch.ones(4)
    return x + 1


@torch.compile(backend="eager")
def copy_into_computed(x):
    z = torch.zeros(4)
    z.data.copy_(x)
    return z + 1


@torch.compile(backend="eager")
def read_data(x):
    y = x.data
    return y + 1


class Weights(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(4))
        self.register_buffer("scale", torch.ones(4))

    def forward(self, x):
        self.weight.data = torch.zeros(4)
        w = self.scale
        w.data = torch.full((4,), 2.0)
        return x + self.weight + self.scale


model = torch.compile(Weights(), backend="eager")


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "store_on_input": (store_on_input.__wrapped__, (x,)),
        "copy_into_computed": (copy_into_computed.__wrapped__, (x,)),
        "read_data": (read_data.__wrapped__, (x,)),
        "parameter_and_buffer": (Weights(), (x,)),
    }
