"""Python's object model calls project methods no call expression names: arithmetic operators,
`len()`, iteration, `with`, an attribute store on `self` (`__setattr__`), a property
read on a local instance, dataclass construction, `__new__`, `autograd.Function.apply` (also
through a module-level alias). Scanned by tests/object_model.rs with `--roots "pkg.model.*"`;
compiled under real Dynamo by tests/python/test_reach_proofs.py. Each method in pkg/values.py holds
one hazard that Dynamo traces when it compiles the Module below that uses it (one Module per fact,
so that one break does not hide the next); `MatMul` is the exception Dynamo 2.11 does not trace.
"""

import torch

from pkg.values import Box, Config, Recorder, Scaled, Shared, Square, Value, square


class Add(torch.nn.Module):
    def forward(self, x):
        v = Value(x * 2)
        w = v + v
        return w.t


class MatMul(torch.nn.Module):
    def forward(self, x):
        v = Value(x * 2)
        w = v @ v
        return w.t


class Mul(torch.nn.Module):
    def forward(self, x):
        v = Value(x * 2)
        w = v * 2.0
        return w.t


class Neg(torch.nn.Module):
    def forward(self, x):
        v = Value(x * 2)
        w = -v
        return w.t


class Length(torch.nn.Module):
    def forward(self, x):
        v = Value(x * 2)
        n = len(v)
        return x * n


class Iterate(torch.nn.Module):
    def forward(self, x):
        out = x * 2
        for row in Value(x):
            out = out + row
        return out


class Within(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        with Scaled():
            y = x + 1
        return y


class Configured(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        cfg = Config()
        return x * cfg.scale


class Built(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        shared = Shared(x)
        return shared.t + 1


class Applied(torch.nn.Module):
    def forward(self, x):
        return Square.apply(x * 2)


class AppliedAlias(torch.nn.Module):
    def forward(self, x):
        return square(x * 2)


class Recorded(Recorder):
    def forward(self, x):
        self.last = x.sum()
        return x + 1


class Boxed(torch.nn.Module):
    def forward(self, x):
        box = Box(x * 2)
        return x + box.top


def case(name):
    return globals()[name](), (torch.randn(3, 3, requires_grad=True),)
