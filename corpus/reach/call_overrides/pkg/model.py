"""Modules built in `__init__` whose class overrides `__call__` (pkg/blocks.py), called as
attributes (`Net`), from a ModuleList (`Stack`), or compiled themselves (`case_shift`)."""

import torch
from torch import nn

from .blocks import Scale, Shift


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.shift = Shift()
        self.scale = Scale()

    def forward(self, x):
        return self.scale(self.shift(x))


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Shift(), Scale()])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def case_net():
    return Net(), (torch.randn(3),)


def case_stack():
    return Stack(), (torch.randn(3),)


def case_shift():
    # torch.compile(module) compiles `module.__call__`: the override itself.
    return Shift(), (torch.randn(3),)
