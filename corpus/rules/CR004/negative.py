"""CR004 negatives: pure `torch.cond` branches.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): branches that only compute on
their operands (and read, not write, outside state) compile and match eager.
"""

import torch
from torch import nn


class Pure(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    def forward(self, x):
        def grow(x):
            return x.sin() * self.scale

        def shrink(x):
            local = []
            local.append(x.cos())
            return local[0]

        return torch.cond(x.sum() > 0, grow, shrink, (x,))


def cases():
    """name -> (module, args)."""
    return {"pure": (Pure(), (torch.ones(3),))}
