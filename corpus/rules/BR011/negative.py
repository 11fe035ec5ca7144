"""BR011 negatives: recurrent code Dynamo traces.

Why: measured on torch 2.11 (backend="eager"): every case compiles with no graph break. A cell
(`nn.LSTMCell`) is an ordinary module; an RNN built but not called in forward is never wrapped.
"""

from abc import ABC, abstractmethod

import torch
from torch import nn


class CellLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(4, 8)

    def forward(self, x):
        h = c = x.new_zeros(x.shape[0], 8)
        for t in range(x.shape[1]):
            h, c = self.cell(x[:, t], (h, c))
        return h


class UnusedRnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 8)
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return self.proj(x)


class ProjectCell(nn.LSTMCell):
    """A cell is no recurrent-layer kind, however it is derived."""


class ScaledCell(nn.LSTMCell):
    """`super().forward()` of a cell: no recurrent-layer kind, Dynamo traces it."""

    def forward(self, x, hx=None):
        return super().forward(x * 2, hx)


class ProjectedMixin(ABC, nn.Linear):
    """Abstract, and its only subclass is a linear layer: `super().forward()` is traced."""

    @abstractmethod
    def scale(self) -> float: ...

    def forward(self, x):
        return super().forward(x * self.scale())


class ScaledLinear(ProjectedMixin):
    def scale(self):
        return 2.0


class SubclassedCell(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = ProjectCell(4, 8)

    def forward(self, x):
        h = c = x.new_zeros(x.shape[0], 8)
        return self.cell(x[:, 0], (h, c))[0]


def pick_layer(kind):
    return nn.GRU if kind == "gru" else nn.Linear


class PickedMaybeRnn(nn.Module):
    """The helper may return a non-recurrent class: not every candidate is an RNN kind."""

    def __init__(self, kind="linear"):
        super().__init__()
        self.layer = pick_layer(kind)(4, 8)

    def forward(self, x):
        return self.layer(x)


def cases():
    """name -> (callable, args)."""
    x = torch.randn(2, 3, 4)
    return {
        "cell_loop": (CellLoop(), (x,)),
        "unused_rnn": (UnusedRnn(), (x,)),
        "subclassed_cell": (SubclassedCell(), (x,)),
        "picked_maybe_rnn": (PickedMaybeRnn(), (x,)),
        "cell_super_forward": (ScaledCell(4, 8), (x[:, 0],)),
        "abstract_mixin_of_a_linear": (ScaledLinear(4, 8), (x,)),
    }
