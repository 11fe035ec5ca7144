"""Module- and class-level settings read by traced branches: bound once to a constant at the top
level, and changed by nothing in the tree, each keeps its default — a user can change it (also
through the class's own setter, which nothing here calls), so the branch is the option tier
(`# gated`), not silence. A setting a function in the tree rebinds (`global`), or whose class's
own setter the tree uses (`with Flipped():`), stays undecided (`# normal`). Under Dynamo each
`# gated` line breaks only with its setting changed, each `# normal` line once the tree's own
setter ran (tests/python/test_default_context_proofs.py; tests/default_context.rs)."""

import torch
from torch import nn

FAST_PATH = False
LEVEL = 0
_REBOUND = False


class Switch:
    strict = False


class Toggled:
    enabled = False

    @classmethod
    def turn_on(cls):
        cls.enabled = True


class Flipped:
    active = False

    def __enter__(self):
        Flipped.active = True

    def __exit__(self, *exc):
        Flipped.active = False


def enable_rebound():
    global _REBOUND
    _REBOUND = True


class SettingNet(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        if FAST_PATH:
            x = x * x.sum().item()  # gated: needs FAST_PATH = True
        if LEVEL > 0:
            x = x * x.mean().item()  # gated: needs LEVEL above 0
        if Switch.strict:
            x = x * x.max().item()  # gated: needs Switch.strict = True
        if _REBOUND:
            x = x * x.min().item()  # normal: a setter in the tree rebinds it
        if Toggled.enabled:
            x = x * x.std().item()  # gated: needs Toggled.turn_on(), which nothing here calls
        if Flipped.active:
            x = x * x.abs().sum().item()  # normal: the tree runs under `with Flipped():`
        return self.lin(x)


def run_flipped(net, x):
    with Flipped():
        return net(x)
