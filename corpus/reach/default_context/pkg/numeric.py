"""Numeric options compared with a number (`self.prob > 0` on `prob=0.0`): at the defaults the
comparison is False, so its branch is not traced. Each `# gated` line breaks under Dynamo only
with its option set; the `# normal` line with the defaults too (tests/python/
test_default_context_proofs.py; tests/default_context.rs expects the same tiers)."""

import torch
from torch import nn


class Dropper(nn.Module):
    def __init__(self, dim, prob=0.0, warmup=0, scale=1.0):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.prob = prob
        self.warmup = warmup
        self.scale = scale

    def forward(self, x):
        if self.prob > 0:
            x = x + x.mean().item()  # gated: needs prob above 0
        if self.warmup <= 0:
            x = self.lin(x)
        else:
            x = x * x.sum().item()  # gated: needs warmup above 0
        if self.scale != 1.0:
            x = x * x.std().item()  # gated: needs scale other than 1.0
        return x + x.max().item()  # normal: whatever the options
