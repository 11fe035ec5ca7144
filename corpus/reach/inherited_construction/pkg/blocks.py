import torch
from torch import nn


class ScaleMixin:
    # A plain base class (not a Module): its methods run on the Module that mixes it in.
    def scaled(self, x):
        if x.sum() > 0:  # a tensor branch: breaks the graph when traced
            return x * 2
        return x


class Block(nn.Module, ScaleMixin):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.scaled(self.proj(x))


class Patch(nn.Module):
    def forward(self, x):
        if x.mean() > 0:  # a tensor branch: breaks the graph when traced
            return x + 1
        return x
