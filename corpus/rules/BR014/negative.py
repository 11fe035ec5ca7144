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


def autocast_on(device):
    """A torch signature probed across versions: torch's own function, not inlined by Dynamo."""
    try:
        return torch.is_autocast_enabled(device)
    except TypeError:
        return torch.is_autocast_enabled()


class VersionProbe(nn.Module):
    def forward(self, x):
        return x * 2 if autocast_on(x.device.type) else x + 1


def cases():
    """Entry points for the proofs: name -> (callable, example args)."""
    return {
        "other_error_fallback": (OtherErrorFallback(), (torch.randn(4),)),
        "torch_signature_probe": (VersionProbe(), (torch.randn(4),)),
    }
