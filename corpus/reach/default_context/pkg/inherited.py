"""A base class's option passed on by subclasses' `super().__init__(...)` from their own
parameters with the same default (by position, or under another name): nothing in the tree
sets those, so the base's option keeps its default. Each `# gated` line breaks under Dynamo only
when a user builds the subclass with the option set (tests/python/test_default_context_proofs.py;
tests/default_context.rs)."""

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, dim, flag=False):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.flag = flag

    def forward(self, x):
        if self.flag:
            x = x + x.sum().item()  # gated: needs flag=True, which only a user passes
        return self.lin(x)


class PositionalGate(Gate):
    def __init__(self, dim, flag=False):
        super().__init__(dim, flag)


class RenamedGate(Gate):
    def __init__(self, dim, use_flag=False):
        super().__init__(dim, flag=use_flag)
