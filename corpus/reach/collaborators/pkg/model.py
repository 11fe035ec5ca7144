"""Modules reading properties of collaborators whose class is known from an `__init__` assignment,
a constructor parameter's annotation, a method parameter's annotation, or a factory's return
(tests/collaborators.rs roots `pkg.model.*`).
"""

import functools

import torch
from torch import nn

from .parts import Cached, Dist, Kernel, Shape, Square, make_dist


class Stored(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = Kernel(3)

    def forward(self, x):
        return x * self.kernel.width


class Injected(nn.Module):
    def __init__(self, shape: Shape):
        super().__init__()
        self.shape = shape

    def forward(self, x):
        return x * self.shape.area


class Annotated(nn.Module):
    def forward(self, x):
        return self.scaled(x, Dist(x))

    def scaled(self, x, dist: Dist):
        return x * dist.spread


class Made(nn.Module):
    def forward(self, x):
        dist = make_dist(x)
        return x * dist.spread


class Memo(nn.Module):
    # `cached.total` is a cached_property of a plain class: Dynamo breaks in functools'
    # `__get__`, skips this frame, and never traces the getter.
    def forward(self, x):
        cached = Cached(x)
        return x * cached.total


class OwnMemo(nn.Module):
    # A cached_property of the Module itself: the getter runs as a frame of its own, and Dynamo
    # compiles that frame (its `self` is a Module).
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    @functools.cached_property
    def total(self):
        return self.w.sum().item()

    def forward(self, x):
        return x * self.total


def case_stored():
    return Stored(), (torch.randn(3),)


def case_injected():
    return Injected(Square()), (torch.randn(3),)


def case_annotated():
    return Annotated(), (torch.randn(3),)


def case_made():
    return Made(), (torch.randn(3),)


def case_memo():
    return Memo(), (torch.randn(3),)


def case_own_memo():
    return OwnMemo(), (torch.randn(3),)
