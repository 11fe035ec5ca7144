"""BR009 negatives: parameters and buffers created once, outside traced code, or via register_buffer."""

import torch
from torch import nn


class Criterion(nn.Module):
    def __init__(self, num_classes: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_classes))
        self.empty_weight = nn.Buffer(torch.ones(num_classes + 1))

    def forward(self, logits):
        return logits * self.weight


class Table(nn.Module):
    def forward(self, x):
        # register_buffer is traced (torch 2.11, measured).
        self.register_buffer("last", x.detach(), persistent=False)
        return x + 1


def cases():
    return {"register_buffer": (Table(), (torch.randn(2, 3),))}
