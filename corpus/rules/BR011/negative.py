"""BR011 negatives: recurrent code Dynamo traces.

Why: measured on torch 2.11 (backend="eager"): every case compiles with no graph break. A cell
(`nn.LSTMCell`) is an ordinary module; an RNN built but not called in forward is never wrapped.
"""

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


def cases():
    """name -> (callable, args)."""
    x = torch.randn(2, 3, 4)
    return {
        "cell_loop": (CellLoop(), (x,)),
        "unused_rnn": (UnusedRnn(), (x,)),
    }
