"""Functions used as values (src/semantic/model/references.rs): scanned with
`--roots pkg.model.Net` by tests/reference_edges.rs and run under real Dynamo by
tests/python/test_reach_proofs.py — every function below holds one graph break that Dynamo reaches
from `Net.forward`:

- a `@property` getter read as `self.scale`;
- a bound method kept in a local (`fn = self.bounded`, then `fn(x)`);
- a function handed to another (`apply_to(y, squeeze_item)`);
- a nested `def` its enclosing function returns (`pack` → `unpack`);
- a function stored on `self` in `__init__` and called later (`self.act = identity`);
- a parameter's function default stored on `self` (`sample=keep_positive`);
- an instance built as a parameter's default and stored on `self` (`criterion=Criterion()`), called.
"""

import torch

from pkg.helpers import Criterion, apply_to, identity, keep_positive, pack, squeeze_item


class Net(torch.nn.Module):
    def __init__(self, sample=keep_positive, criterion=Criterion()):
        super().__init__()
        self.sample = sample
        self.criterion = criterion
        self.act = identity
        self.register_buffer("weight_sum", torch.ones(3))

    @property
    def scale(self):
        return float(self.weight_sum.max())

    def bounded(self, x):
        top = x.max().item()
        return x * top

    def forward(self, x):
        fn = self.bounded
        y = fn(x)
        z = apply_to(y, squeeze_item)
        packed, unpack = pack(y)
        out = self.act(self.sample(y)).sum() * self.scale + z
        return self.criterion(out), unpack(packed)


def case_net():
    return Net(), (torch.randn(4, 3),)
