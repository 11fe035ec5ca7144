"""BR041 negatives: context managers Dynamo enters.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): an instance built in the `with`
itself is traced; `torch.autocast` and `contextlib.nullcontext()` stored on `self` are entered; a
local of a class of the file entered with no break before it is traced. (The contrasts that need a
graph break, itself a finding, are in positive.py's `contrast_cases()`.)
"""

import contextlib

import torch
from torch import nn


class Recorder:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class BuiltInWith(nn.Module):
    def forward(self, x):
        with Recorder():
            return x + 1


class Autocast(nn.Module):
    def __init__(self):
        super().__init__()
        self.amp = torch.autocast("cpu", enabled=False)
        self.idle = contextlib.nullcontext()

    def forward(self, x):
        with self.amp:
            x = x + 1
        with self.idle:
            return x * 2


class LocalNoBreak(nn.Module):
    def forward(self, x):
        recorder = Recorder()
        x = x + 1
        with recorder:
            x = x * 2
        return x


def cases():
    """name -> (module, args, graphs it compiles)."""
    x = torch.randn(4)
    return {
        "built_in_with": (BuiltInWith(), (x,), 1),
        "autocast_and_nullcontext": (Autocast(), (x,), 1),
        "local_no_break": (LocalNoBreak(), (x,), 1),
    }


if __name__ == "__main__":
    x = torch.randn(4)
    for module, args, _ in cases().values():
        torch.compile(module, backend="eager")(*args)
