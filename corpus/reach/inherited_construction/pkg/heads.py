import torch
from torch import nn


class Head(nn.Module):
    # Every head built overrides `score`: `self.score(x)` in `forward` never runs this one.
    def forward(self, x):
        return self.score(x)

    def score(self, x):
        if x.sum() > 0:  # never traced: every built subclass overrides score
            return x
        return -x


class SumHead(Head):
    def score(self, x):
        return x.sum(-1)


class MaxHead(Head):
    def score(self, x):
        return x.amax(-1)


class Scorer(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.heads = nn.ModuleList([SumHead(), MaxHead()])

    def forward(self, x):
        return [head(x) for head in self.heads]


def case_scorer():
    return Scorer(), (torch.randn(2, 4),)
