import torch

from pkg.layers import Lstm
from pkg.layers.recurrent import Gate


class Stacked(Lstm):
    # Derives from torch's LSTM through a project class of another file: decided when linking.
    def forward(self, x, hx=None):
        x = x * 2
        out, state = super().forward(x, hx)
        print("stacked", out.shape)
        return out, state


class Widened(Gate):
    # Derives from a module Dynamo wraps: `super().forward` is traced.
    def forward(self, x):
        return super().forward(x * 2)


def case_stacked():
    return Stacked(4, 4, batch_first=True), (torch.randn(2, 3, 4),)


def case_widened():
    return Widened(4, 4), (torch.randn(2, 4),)
