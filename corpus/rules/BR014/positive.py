"""BR014 positives: a call tried with arguments some callees do not take, retried in `except TypeError:`.

Why: when the arguments do not bind, Dynamo breaks the graph at the call ("failed to bind
arguments when attempting to inline", GB7312 on torch 2.11) instead of raising TypeError into the
handler, so every call that takes the fallback costs a graph break.
"""

import torch
from torch import nn


class Scale(nn.Module):
    def forward(self, x):
        return x * 2


class MaskedScale(nn.Module):
    def forward(self, x, lengths=None):
        return x * 3


class MixedStack(nn.Module):
    """Layers of two signatures; the keyword is probed per layer."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Scale(), MaskedScale()])

    def forward(self, x, lengths):
        for layer in self.layers:
            try:
                x = layer(x, lengths=lengths)  # expect: BR014
            except TypeError:
                x = layer(x)
        return x


def apply_with_mask(fn, x, mask):
    try:
        return fn(x, mask)  # expect: BR014
    except (TypeError, ValueError):
        return fn(x)


def double(x):
    return x * 2


class FunctionProbe(nn.Module):
    def forward(self, x):
        return apply_with_mask(double, x, x > 0)


def cases():
    """Entry points for the proofs: name -> (callable, example args)."""
    x = torch.randn(4)
    return {
        "keyword_probe_over_layers": (MixedStack(), (x, x)),
        "positional_probe_of_a_function": (FunctionProbe(), (x,)),
    }
