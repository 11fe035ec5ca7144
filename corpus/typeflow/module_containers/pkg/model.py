import torch
from torch import nn

from .blocks import Block, Branch, Stage


def make_blocks(n):
    return [Block() for _ in range(n)]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(make_blocks(3))
        self.branches = nn.ModuleDict({"a": Branch()})
        self.stages = nn.Sequential()
        self.stages.append(Stage())

    def forward(self, x):
        for block in self.blocks:
            x = block.step(x)
        for name, branch in self.branches.items():
            x = branch.merge(x)
        return [stage.prepare(x) for stage in self.stages]
