import torch
from torch import nn

from pkg.layers.picking import pick_cell, pick_kept, pick_known, pick_layer
from pkg.layers.recurrent import Lstm


class PickedEncoder(nn.Module):
    def __init__(self, kind="gru", dim=4):
        super().__init__()
        cell_cls = pick_cell(kind)
        self.rnn = cell_cls(dim, dim, batch_first=True)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out


class PickedLayer(nn.Module):
    def __init__(self, kind="linear", dim=4):
        super().__init__()
        layer_cls = pick_layer(kind, nn.Linear)
        self.layer = layer_cls(dim, dim)

    def forward(self, x):
        return self.layer(x)


class KnownEncoder(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        cell_cls = pick_known(Lstm)
        self.rnn = cell_cls(dim, dim, batch_first=True)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out


class KeptEncoder(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        cell_cls = pick_kept("lstm")
        self.rnn = cell_cls(dim, dim, batch_first=True)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out


def case_picked_encoder():
    return PickedEncoder(), (torch.randn(2, 3, 4),)


def case_picked_layer():
    return PickedLayer(), (torch.randn(2, 4),)


def case_known_encoder():
    return KnownEncoder(), (torch.randn(2, 3, 4),)


def case_kept_encoder():
    return KeptEncoder(), (torch.randn(2, 3, 4),)
