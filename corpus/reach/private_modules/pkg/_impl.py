"""A private module the package's `__init__` imports (re-exports): its classes are rooted."""

from torch import nn


class Used(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            x = x + 1
        return x
