"""BR007 positives: tensor.data_ptr() in compiled regions.

Why: torch 2.11 (backend="eager"): comparing the pointer fails with GB0023, hashing it with GB0365,
and Dynamo then runs the whole frame eagerly (no graph compiled). torch 2.2: graph break.
"""

import torch
from torch import nn


class TiedOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, y):
        out = self.proj(x)
        if x.data_ptr() == y.data_ptr():  # expect: BR007
            return out
        return out + self.proj(y)


class PointerCache(nn.Module):
    def forward(self, x):
        y = x.sin()
        key = x.data_ptr()  # expect: BR007
        cache = {key: 1.0}
        return y * cache[key]


def cases():
    x = torch.randn(3, 4)
    return {
        "aliasing_check": (TiedOutput(), (x, torch.randn(3, 4))),
        "pointer_keyed_cache": (PointerCache(), (x,)),
    }
