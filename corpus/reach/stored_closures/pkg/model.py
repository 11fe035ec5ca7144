"""Modules keeping a call's result on `self` and calling it later: a method wrapped in place by a
wrapper method (the instance attribute shadows the method) and a closure a factory returned."""

import functools

import torch

from .helpers import base_schedule, make_gate, shifted


class WrappedInPlace(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.step = self._counted(self.step)

    def _counted(self, fn):
        @functools.wraps(fn)
        def counted(*args):
            self.calls = torch.ones(1).sum().item()
            return fn(*args)

        return counted

    def step(self, x):
        return x + 1

    def forward(self, x):
        return self.step(x)


class AnnotatedWrap(torch.nn.Module):
    """The same, through an annotated assignment."""

    def __init__(self):
        super().__init__()
        self.step: object = self._checked(self.step)

    def _checked(self, fn):
        def checked(*args):
            self.seen = torch.ones(1).max().item()
            return fn(*args)

        return checked

    def step(self, x):
        return x - 1

    def forward(self, x):
        return self.step(x)


class FactoryClosure(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = make_gate(2.0)

    def forward(self, x):
        return self.gate(x)


class DefaultThenShifted(torch.nn.Module):
    """A function default stored, then replaced by a factory's closure that calls it: both run."""

    def __init__(self, schedule=base_schedule, shift=0.0):
        super().__init__()
        self.schedule = schedule
        if shift:
            self.schedule = shifted(self.schedule, shift)

    def forward(self, x):
        return self.schedule(x)


def case(name):
    module = DefaultThenShifted(shift=1.0) if name == "DefaultThenShifted" else globals()[name]()
    return module, (torch.randn(3, 3),)
