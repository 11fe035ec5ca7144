"""Modules calling a class's inherited members: on the class (through a module attribute and
an imported name) and on `self.__class__`."""

import torch

from . import flags
from .flags import FastPath


class ThroughModule(torch.nn.Module):
    def forward(self, x):
        return x * flags.FastPath.level()


class ThroughName(torch.nn.Module):
    def forward(self, x):
        return x * FastPath.level()


class ThroughInstanceClass(torch.nn.Module):
    def forward(self, x):
        with FastPath(torch.ones(1) * 2):
            return x + 1


def case(name):
    return globals()[name](), (torch.randn(3, 3),)
