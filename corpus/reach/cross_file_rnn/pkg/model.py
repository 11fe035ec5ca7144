import torch
from torch import nn

from pkg.layers import Lstm
from pkg.layers.recurrent import Gate


class Encoder(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.rnn = Lstm(dim, dim, batch_first=True)

    def forward(self, x):
        out, _ = self.rnn(self.proj(x))
        return out


class Gated(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.gate = Gate(dim, dim)

    def forward(self, x):
        return self.gate(x)


def case_encoder():
    return Encoder(), (torch.randn(2, 3, 4),)


def case_gated():
    return Gated(), (torch.randn(2, 4),)
