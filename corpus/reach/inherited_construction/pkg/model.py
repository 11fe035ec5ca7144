import torch
from torch import nn

from pkg.base import Stack
from pkg.blocks import Block, Patch
from pkg.wrappers import keep_kind


class Tower(Stack):
    def __init__(self, dim=4, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(Block(dim))


class Chain(nn.Sequential):
    # No forward of its own: nn.Sequential.forward calls each child built here.
    def __init__(self, dim=4):
        layers = [nn.Linear(dim, dim), Patch()]
        super().__init__(*layers)


class Wrapped(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    @keep_kind(tag="proj")
    def forward(self, x):
        return self.proj(x)


def case_tower():
    return Tower(), (torch.randn(2, 4),)


def case_chain():
    return Chain(), (torch.randn(2, 4),)


def case_wrapped():
    return Wrapped(), (torch.randn(2, 4),)
