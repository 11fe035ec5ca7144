"""A Module calling a function a class decorated."""

import torch

from .wrap import scale


class Scaled(torch.nn.Module):
    def forward(self, x):
        return scale(x) + 1


def case(name):
    return globals()[name](), (torch.randn(3, 3),)
