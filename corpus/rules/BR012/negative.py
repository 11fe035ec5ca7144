"""BR012 negatives: tensor indices Dynamo traces.

Why: measured on torch 2.11 (backend="eager"): no graph break. `argmax(dim=...)` returns a tensor
of indices (advanced indexing); an int from the shape is a host value.
"""

import torch
from torch import nn


class PerRowBest(nn.Module):
    def forward(self, x):
        idx = x.argmax(dim=0)
        return x[idx]


class KeepDimGather(nn.Module):
    def forward(self, boxes, scores):
        best = scores.argmax(0, keepdim=True)
        return boxes[best]


class ShapeIndex(nn.Module):
    def forward(self, x):
        last = x.shape[0] - 1
        return x[last]


def cases():
    """name -> (callable, args)."""
    x = torch.rand(3, 3)
    return {
        "per_row_best": (PerRowBest(), (x,)),
        "keepdim_gather": (KeepDimGather(), (torch.rand(3, 4), torch.rand(3))),
        "shape_index": (ShapeIndex(), (x,)),
    }
