"""BR013 positives: calls through an instance attribute holding a functools cache wrapper.

Why: measured on torch 2.11 (backend="eager"): GB0156 "Unsupported method call" (Dynamo does not
know how to trace method `__call__` of class `_lru_cache_wrapper`); torch 2.2, 2.5 and 2.8 break
on the same calls.
"""

import functools

import torch
from torch import nn


class Interleave(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)
        self.offsets = functools.cache(self.offsets_for)

    def offsets_for(self, n):
        return torch.arange(n) * 2

    def forward(self, x):
        x = self.proj(x)
        return x + self.offsets(x.shape[1])  # expect: BR013


class BaseWithCache(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = functools.lru_cache(maxsize=4)(self.make_table)

    def make_table(self, n):
        return torch.ones(n)


class UsesBaseCache(BaseWithCache):
    def forward(self, x):
        return x * self.table(x.shape[-1])  # expect: BR013


class Indexer:
    def __init__(self, steps):
        self.steps = steps
        # A per-instance cache of a bound method.
        self.indexes = functools.lru_cache(16)(self.indexes)

    def indexes(self, n):
        return torch.arange(n) % self.steps

    @torch.compile(backend="eager")
    def apply(self, x):
        return x[:, self.indexes(x.shape[1])]  # expect: BR013 +SY003


def cases():
    """name -> (callable, args, expected GB codes on torch 2.11)."""
    x = torch.randn(2, 6)
    return {
        "cache_of_bound_method": (Interleave(), (x,), {"GB0156"}),
        "lru_cache_set_in_base_class": (UsesBaseCache(), (x,), {"GB0156"}),
        "lru_cache_in_compiled_method": (Indexer.apply, (Indexer(3), x), {"GB0156"}),
    }
