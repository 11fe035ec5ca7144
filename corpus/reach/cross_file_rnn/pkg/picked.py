import torch
from torch import nn

from pkg.layers.picking import pick_cell, pick_layer


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


def case_picked_encoder():
    return PickedEncoder(), (torch.randn(2, 3, 4),)


def case_picked_layer():
    return PickedLayer(), (torch.randn(2, 4),)
