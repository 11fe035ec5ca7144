"""Arguments no call in the tree passes, reached through `super()` chains, `__call__` and stored
callables. Each `# never` line breaks under Dynamo only when a call passes a value that no call
here passes (not reported); each `# normal` line with the calls as written
(tests/python/test_default_context_proofs.py; tests/default_context.rs, scanned with the roots
`Doubled`, `WorkerNet` and `HookNet`: a root's own arguments are the user's, never decided)."""

import torch
from torch import nn


class Clipped(nn.Module):
    def forward(self, x, clip=False):
        if clip:
            x = x + x.max().item()  # never: the only call, super().forward(x), leaves clip at False
        return x


class Doubled(Clipped):
    def forward(self, x):
        return super().forward(x) * 2


class Worker:
    def __call__(self, x, opt=False):
        return self.run(x, opt=opt)

    def run(self, x, opt=False):
        if opt:
            x = x + x.min().item()  # never: the only call of the worker leaves opt at False
        return x


class WorkerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.worker = Worker()

    def forward(self, x):
        return self.worker(x)


def hook(x, strict=False):
    if strict:
        x = x + x.std().item()  # never: the stored hook is called with x only
    return x


class HookNet(nn.Module):
    def __init__(self, fn=hook):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        x = self.fn(x)
        return x + x.sum().item()  # normal: whatever the arguments
