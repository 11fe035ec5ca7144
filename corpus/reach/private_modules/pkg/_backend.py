"""A private module loaded only by `importlib.import_module("pkg._backend")`: it is used all the
same, and its classes are rooted."""

from torch import nn


class Backend(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            x = x + 1
        return x
