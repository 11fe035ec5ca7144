"""Modules whose own `__call__` does the work instead of `return super().__call__(...)`: one
calls `self.forward` itself, one calls `super().__call__` and post-processes the result. Calling
such a module runs the override (tests/call_overrides.rs; Dynamo proof in
tests/python/test_collaborator_reach_proofs.py).
"""

import torch
from torch import nn


class Direct(nn.Module):
    def __call__(self, x):
        x = self.prepare(x)
        return self.forward(x)

    def prepare(self, x):
        top = x.max().item()
        return x - top


class Shift(Direct):
    def forward(self, x):
        return x + 1


class Post(nn.Module):
    def __call__(self, x):
        out = super().__call__(x)
        return self.finish(out)

    def finish(self, out):
        low = out.min().item()
        return out - low


class Scale(Post):
    def forward(self, x):
        return x * 2
