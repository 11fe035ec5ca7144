"""BR036 negatives: requires_grad=False, the leaf built outside the compiled code, and a
requires_grad keyword of a non-torch function.

Why: measured on torch 2.11 (backend="eager", fullgraph=True): each compiles as one graph. Dynamo
breaks only when the keyword is a true constant on a torch call returning a tensor.
"""

import torch
from torch import nn


def make_state(n, requires_grad=True):
    return [0.0] * n, requires_grad


@torch.compile(backend="eager")
def no_grad_buffer(x):
    w = torch.ones(3, requires_grad=False)
    return x * w


class Leaf(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(3, requires_grad=True))

    def forward(self, x):
        return x * self.weight


@torch.compile(backend="eager")
def own_keyword(x):
    state, flag = make_state(3, requires_grad=True)
    return x + len(state) + flag


def cases():
    """name -> (callable, args)."""
    return {
        "requires_grad_false": (no_grad_buffer.__wrapped__, (torch.randn(3),)),
        "built_in_init": (Leaf(), (torch.randn(3),)),
        "own_keyword": (own_keyword.__wrapped__, (torch.randn(3),)),
    }
