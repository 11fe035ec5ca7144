"""Caller-context fixture (scanned with `--roots context.ContextNet` by tests/scan_cli.rs, run under
real Dynamo by tests/python/test_rule_proofs.py): Dynamo specializes on Python constants, so a
callee's branch that no traced call's arguments or guards can take is never traced.

- `if self.merged: self.unmerge()`, and `unmerge` starts with `if not self.merged: warn; return`:
  the warning is unreachable from that call (the caller's guard holds on the edge);
- `pool(x, pool_type="avg")` on every traced call: the `else: print(...)` for an unknown pool type
  is never traced;
- `walk(x, child=False)` (no default) and `visit(x, child=False)` (default False, passed
  explicitly): the `child=True` branches are never traced;
- constants passed along a chain of calls unchanged: `members(x, duplicate=False)` forwards
  `duplicate` to `_share`, whose `deepcopy(...) if duplicate else ...` is then never traced, and
  `scaled(x, on_zero="zero")` → `_ratio` → `_divide`, whose `on_zero == "warn"` test is then
  never true;
- `padded(x, x.shape[-1])`: one dimension of a shape is an int, never `None`, and (assumed)
  non-zero, so `x.sum().item() if not length else length` never reads the tensor;
- `sized(x, size=(x.shape[0], x.shape[-1]))`: a tuple built at the call is never `None`, so the
  `if size is None:` branch that reads the tensor is never traced.

Nothing here may be reported with that root; the compiled call has 0 graph breaks.
`context.LooseNet` calls the same helpers without the guard and with other constants: there the
branches are traced and reported.
"""

import copy
import warnings

import torch
from torch import nn


class Mergeable(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(4))
        self.merged = True

    def unmerge(self):
        if not self.merged:
            warnings.warn("Already unmerged")
            return
        self.merged = False

    def pool(self, x, pool_type):
        if pool_type == "avg":
            return x.mean(-1)
        elif pool_type == "max":
            return x.amax(-1)
        else:
            print(f"unknown pool type {pool_type}: {x.sum().item()}")
            return x

    def walk(self, x, child):
        if child:
            return x + x.sum().item()
        return x

    def visit(self, x, child=False):
        if child:
            return x + x.max().item()
        return x

    def members(self, x, duplicate=True):
        return self._share(x, duplicate)

    def _share(self, x, duplicate=False):
        return copy.deepcopy(x.detach()) if duplicate else x

    def scaled(self, x, on_zero="warn"):
        return self._ratio(x, on_zero=on_zero)

    def _ratio(self, x, on_zero="warn"):
        return self._divide(x, on_zero)

    def _divide(self, x, on_zero="warn"):
        if on_zero == "warn" and torch.any(x == 0):
            warnings.warn("zero in the denominator")
        return x / (x.abs() + 1)

    def padded(self, x, length=None):
        width = int(x.sum().item()) if not length else length
        return x[..., :width]

    def sized(self, x, size=None):
        if size is None:
            size = (x.shape[0], int(x.abs().max().item()) + 1)
        return x[..., : size[1]]


class ContextNet(Mergeable):
    def forward(self, x):
        if self.merged:
            self.unmerge()
        x = self.walk(x * self.weight, child=False)
        x = self.visit(x, child=False)
        x = self.members(x, duplicate=False)
        x = self.scaled(x, on_zero="zero")
        x = self.padded(x, x.shape[-1])
        x = self.sized(x, size=(x.shape[0], x.shape[-1]))
        return self.pool(x, pool_type="avg")


class LooseNet(Mergeable):
    def forward(self, x):
        self.unmerge()
        x = self.walk(x * self.weight, child=True)
        x = self.visit(x, child=True)
        x = self.members(x)
        x = self.scaled(x)
        x = self.padded(x)
        x = self.sized(x)
        return self.pool(x, pool_type="sum")
