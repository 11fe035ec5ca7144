"""Constructor options passed on as arguments: a method passes `self.<option>` to a helper, and
the helper's branch tests that parameter. Nothing in the tree sets the option, so each `# gated`
line breaks under Dynamo only when a user builds the module with the option off its default (the
option tier); each `# normal` line with the defaults too (tests/python/test_default_context_proofs.py;
tests/default_context.rs, scanned with the roots `Selector`, `Sampler`, `Literal` and `Checked`: options
are read at their defaults only where a root's own arguments are not involved)."""

import torch
from torch import nn


def select(x, ratio, min_score=None):
    if min_score is not None:
        return x * x.max().item()  # gated: needs Selector(min_score is not None)
    if ratio is not None:
        return x * x.min().item()  # normal: the default ratio is 0.5
    raise ValueError("ratio or min_score")


class Selector(nn.Module):
    def __init__(self, ratio=0.5, min_score=None):
        super().__init__()
        self.ratio = ratio
        self.min_score = min_score

    def forward(self, x):
        return select(x, self.ratio, self.min_score)


def draw(x, strategy="poisson"):
    if strategy == "multinomial":
        return x * x.std().item()  # gated: needs Sampler(strategy != 'poisson')
    return x


def resample(x, strategy="poisson"):
    # Passes its own parameter on: the option reaches `draw` one caller further.
    return draw(x, strategy)


class Sampler(nn.Module):
    def __init__(self, strategy="poisson"):
        super().__init__()
        self.strategy = strategy

    def forward(self, x):
        return resample(x, strategy=self.strategy)


def scale(x, mode="plain"):
    if mode == "log":
        return x * x.sum().item()  # normal: a call passes "log"
    return x


class Literal(nn.Module):
    def __init__(self, mode="plain"):
        super().__init__()
        self.mode = mode

    def forward(self, x):
        return scale(x, self.mode) + scale(x, "log")


class Checked(nn.Module):
    """Validates its arguments before storing them: a construction that does not raise has made
    the stores, so `clip` is an option like any other."""

    def __init__(self, clip=None, scale=1.0):
        super().__init__()
        if clip is not None and clip <= 0:
            raise ValueError("clip must be positive")
        self.clip = clip
        self.scale = scale

    def forward(self, x):
        if self.clip is not None:
            x = x.clamp(max=x.max().item() * self.clip)  # gated: needs Checked(clip is not None)
        return x * self.scale
