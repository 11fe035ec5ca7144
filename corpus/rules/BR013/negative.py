"""BR013 negatives: cached functions Dynamo traces, and attributes that are not cache wrappers.

Why: measured on torch 2.11 and 2.8 (backend="eager"): each case compiles with no graph break. A
function decorated with `@functools.lru_cache` at module or class level is traced (torch 2.8+;
torch 2.5 and 2.2 still break on the decorated method, a different cause); an attribute
reassigned to a plain function is not a wrapper.
"""

import functools

import torch
from torch import nn


@functools.lru_cache(maxsize=8)
def widths(n: int):
    return tuple(range(n))


class DecoratedMethod(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.scale = functools.lru_cache(4)(self.scale_for)
        self.scale = self.scale_for

    @functools.lru_cache(maxsize=4)
    def bias_for(self, n):
        return n + 1

    def scale_for(self, n):
        return float(n)

    def forward(self, x):
        x = self.proj(x) + len(widths(3))
        return x * self.scale(2) + self.bias_for(3)


def cases():
    """name -> (callable, args)."""
    return {"decorated_functions": (DecoratedMethod(), (torch.randn(2, 4),))}
