"""BR012 positives: indexing with a 0-d integer tensor in compiled regions.

Why: measured on torch 2.2 and 2.11 (backend="eager"): indexing a tensor with it breaks with
GB0033 "Data dependent operator"; indexing a list with "Indexing list with non-scalar tensor".
"""

import torch
from torch import nn


class BestBox(nn.Module):
    def forward(self, boxes, scores):
        best = scores.argmax()
        return boxes[best]  # expect: BR012


class BestColumn(nn.Module):
    def forward(self, x):
        return x[:, torch.argmin(x.sum(0))]  # expect: BR012


class PickSegment(nn.Module):
    def forward(self, x):
        segments = [x * 1, x * 2, x * 3]
        k = x.sum(1).argmax()
        return segments[k]  # expect: BR012


def cases():
    """name -> (callable, args, expected GB codes)."""
    x = torch.rand(3, 3)
    return {
        "tensor_indexed_by_local": (BestBox(), (torch.rand(3, 4), torch.rand(3)), {"GB0033"}),
        "tensor_indexed_in_tuple": (BestColumn(), (x,), {"GB0033"}),
        "list_indexed": (PickSegment(), (x,), {"GB0070"}),
    }
