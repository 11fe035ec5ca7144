"""BR034 negatives: reading `__class__` in traced code, and swapping a class outside it.

Why: measured on torch 2.11 (backend="eager", fullgraph=True): `obj.__class__` read traces (a
constant); a `__class__` store in `__init__` or before `torch.compile` runs eagerly, and the
compiled `forward` then traces whole.
"""

import torch
from torch import nn


class Block(nn.Module):
    def forward(self, x):
        return x + 1


class FastBlock(Block):
    def forward(self, x):
        return x + 2


@torch.compile(backend="eager")
def reads_class(x):
    kind = x.__class__
    return x + 1, kind


class SwappedAtInit(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.block.__class__ = FastBlock

    def forward(self, x):
        return self.block(x)


def swapped_before_compile():
    block = Block()
    block.__class__ = FastBlock
    return torch.compile(block, backend="eager")


swapped_at_init = torch.compile(SwappedAtInit(), backend="eager")


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    swapped = Block()
    swapped.__class__ = FastBlock
    return {
        "reads_class": (reads_class.__wrapped__, (x,)),
        "swapped_at_init": (SwappedAtInit(), (x,)),
        "swapped_before_compile": (swapped, (x,)),
    }
