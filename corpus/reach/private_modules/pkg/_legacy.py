"""A private module nothing in the package imports: code the package never runs. A wildcard root
pattern (`pkg.**`) does not root its classes; a pattern that spells `_legacy` does."""

from torch import nn


class Old(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            x = x + 1
        return x
