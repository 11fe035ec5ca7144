"""BR036 positives: torch functions returning a tensor, called with requires_grad=True in traced code.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager", fullgraph=True): each call breaks
the graph — 2.11: "Attempted to use tensor creation function with requires_grad=True"; 2.2-2.8:
"factory functions that return tensors that require grad are not supported".
"""

import torch
from torch import nn


class Queries(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(4, 8)

    def forward(self, x):
        queries = torch.zeros_like(self.embed.weight, requires_grad=True)  # expect: BR036
        return x @ queries.T


@torch.compile(backend="eager")
def fresh_leaf(x):
    w = torch.ones(3, requires_grad=True)  # expect: BR036
    return x * w


@torch.compile(backend="eager")
def from_data(x):
    scale = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)  # expect: BR036
    return x * scale


def cases():
    """name -> (callable, args)."""
    return {
        "zeros_like": (Queries(), (torch.randn(2, 8),)),
        "ones": (fresh_leaf.__wrapped__, (torch.randn(3),)),
        "tensor": (from_data.__wrapped__, (torch.randn(3),)),
    }
