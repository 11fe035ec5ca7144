"""BR003 negatives: static-shape look-alikes that Dynamo traces into one graph (torch 2.11, measured)."""

import torch
import torch.nn.functional as F
from torch import nn


class MaskedFill(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.clone()
        mask = x < 0
        # Assignment through a mask is a masked fill: static shape.
        x[mask] = 0.0
        # Three-argument where keeps the shape.
        return torch.where(mask, x, x * 2)


class Gather(nn.Module):
    def forward(self, x: torch.Tensor, order: torch.Tensor) -> torch.Tensor:
        idx = torch.arange(3)
        # Integer-tensor and slice indexing keep static shapes.
        return x[idx] + x[0] + x[:, 1:].sum() + x[order].sum()


@torch.compile
def onehot_fixed(labels: torch.Tensor) -> torch.Tensor:
    return F.one_hot(labels, num_classes=4).float() + F.one_hot(labels, 4).float()


@torch.compile
def repeat_static(x: torch.Tensor) -> torch.Tensor:
    return torch.repeat_interleave(x, 2) + x.repeat_interleave(2)


@torch.compile
def eager_only_unique(x: torch.Tensor) -> torch.Tensor:
    if not torch.compiler.is_compiling():
        print(torch.unique(x))
    return x * 2


def postprocess(scores: torch.Tensor) -> torch.Tensor:
    # Not reachable from any compiled region: eager code may use dynamic shapes freely.
    return scores[scores > 0.5]


@torch.compile
def host_lists(sizes: list) -> int:
    # Comparisons of host values used as an index are not tensor masks.
    flags = [s > 2 for s in sizes]
    return flags[len(sizes) > 1]


def cases():
    x = torch.randn(4, 3)
    labels = torch.tensor([0, 2, 1, 3])
    return {
        "masked_fill_and_where": (MaskedFill(), (x,)),
        "integer_indexing": (Gather(), (x, torch.tensor([1, 0, 2, 3]))),
        "one_hot_with_num_classes": (onehot_fixed, (labels,)),
        "repeat_interleave_int": (repeat_static, (torch.randn(3),)),
        "eager_only_unique": (eager_only_unique, (torch.randn(3),)),
    }
