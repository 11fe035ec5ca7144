"""BR014 negatives: try/except around calls that is not an argument probe."""

import torch
from torch import nn


class MaskedScale(nn.Module):
    def forward(self, x, lengths=None):
        return x * 3


class OtherErrorFallback(nn.Module):
    """The handler catches another error, or calls something else."""

    def __init__(self):
        super().__init__()
        self.inner = MaskedScale()

    def forward(self, x):
        try:
            x = self.inner(x, lengths=x)
        except KeyError:
            x = self.inner(x)
        try:
            y = torch.relu(x)
        except TypeError:
            y = x
        return y


def cases():
    """Entry points for the proofs: name -> (callable, example args)."""
    return {"other_error_fallback": (OtherErrorFallback(), (torch.randn(4),))}
