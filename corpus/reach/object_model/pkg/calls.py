"""A Module whose own `__call__` does bookkeeping and hands over to `super().__call__`: torch's
`Module.__call__` then runs the instance's `forward` (tests/object_model.rs, with
`--roots pkg.calls.run`; tests/python/test_reach_proofs.py compiles `run`).
"""

import torch
from torch import nn


class Counted(nn.Module):
    def __call__(self, *args, **kwargs):
        self.calls = 1
        return super().__call__(*args, **kwargs)


class Shift(Counted):
    def forward(self, x):
        top = x.max().item()
        return x + top


def run(x):
    shift = Shift()
    return shift(x * 2)


def case_run():
    return run, (torch.randn(3),)
