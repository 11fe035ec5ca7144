"""A compiled entry point that is not `forward`: `Text.encode`, inherited from `Coder`, calls
`self.embed`, which `Text` overrides (tests/method_roots.rs roots `pkg.model.Text.encode`;
tests/python/test_collaborator_reach_proofs.py compiles `Text().encode`).
"""

import torch
from torch import nn


class Coder(nn.Module):
    def encode(self, x):
        return self.embed(x) * 2

    def embed(self, x):
        return x

    def forward(self, x):
        return x


class Text(Coder):
    def embed(self, x):
        top = x.max().item()
        return x - top


class Image(Coder):
    def embed(self, x):
        low = x.min().item()
        return x - low


def case_encode():
    return Text().encode, (torch.randn(3),)
