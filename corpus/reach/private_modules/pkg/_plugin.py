"""A private module loaded only by `importlib.import_module("._plugin", __package__)`: it is used
all the same, and its classes are rooted."""

from torch import nn


class Plugin(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            x = x + 1
        return x
