"""Module options passed through factory functions: the module's option comes from a factory's
own parameter with the same default, by keyword or by position, and no call in the tree passes
that parameter (a function that builds submodules on an existing module in place counts too).
Each `# gated` line breaks under Dynamo only when a user calls the factory with the option set
(tests/python/test_default_context_proofs.py; tests/default_context.rs)."""

import torch
from torch import nn


class DropBranch(nn.Module):
    def __init__(self, dim, prob=0.0):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.prob = prob

    def forward(self, x):
        if self.prob == 0:
            return self.lin(x)
        return self.lin(x) * x.sum().item()  # gated: needs drop != 0.0 at the factory


class ScaledBranch(nn.Module):
    def __init__(self, dim, scale=1.0):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.scale = scale

    def forward(self, x):
        if self.scale != 1.0:
            x = x * x.std().item()  # gated: needs scale != 1.0 at the factory
        return self.lin(x)


def make_branch(dim, drop=0.0):
    return DropBranch(dim, prob=drop)


def add_scaled(model, dim, scale=1.0):
    model.scaled = ScaledBranch(dim, scale)
    return model


class FactoryNet(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.branch = make_branch(dim)
        add_scaled(self, dim)

    def forward(self, x):
        return self.scaled(self.branch(x))


class KeywordOuter(nn.Module):
    """Passes its own keyword-only `scale` on under the same name: that forward is not a setter
    of its own parameter (nothing else passes `scale`), so `ScaledBranch`'s stays at 1.0."""

    def __init__(self, dim=4, *, scale=1.0):
        super().__init__()
        self.inner = ScaledBranch(dim, scale=scale)

    def forward(self, x):
        return self.inner(x)
