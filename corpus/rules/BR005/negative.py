"""BR005 negatives: tensor-valued comparisons Dynamo keeps in the graph (torch 2.11, measured)."""

import math

import torch
from torch import nn


class Blend(nn.Module):
    def forward(self, x, y):
        same = (x == y).all()
        close = torch.isclose(x, y)
        return torch.where(same, x, y) + close.float()


@torch.compile
def string_equal(x: torch.Tensor, mode: str) -> torch.Tensor:
    # `.equal` of a str is not a tensor op (and has two arguments here).
    return x * 2 if mode.__eq__("double") else x


class Crop(nn.Module):
    def forward(self, x: torch.Tensor, n: int):
        # Slice bounds from shapes and ints are host values.
        return x[: x.shape[0] // 2, 1:n]


@torch.compile
def positions_over_rows(x: torch.Tensor):
    # A shape entry is a Python int (or a SymInt): no tensor value is read.
    return x.sum() + torch.arange(x.shape[0], device=x.device).sum()


@torch.compile
def rows_over_shape(x: torch.Tensor):
    # `range` over a shape entry or a length: host ints, Dynamo unrolls the loop.
    total = x.sum()
    for i in range(x.shape[0]):
        total = total + x[i]
    return total + len(range(len(x)))


@torch.compile
def scaled_by_width(x: torch.Tensor):
    # math over shape entries: host ints (or SymInts), no tensor value is read.
    return x * math.sqrt(x.shape[-1]) * math.prod(x.shape)


@torch.compile
def chunked(x: torch.Tensor):
    # Tensors made from shape ints alone: Dynamo folds them, no tensor data is read.
    half = torch.div(x.shape[0], 2, rounding_mode="trunc")
    return x.view(half, -1).sum() + x.new_zeros(torch.tensor(x.shape[0])).sum()


def repeat_n(x, times):
    # The only compiled call passes an int: `range` gets a Python int, no break.
    out = x
    for _ in range(times):
        out = out + x
    return out


def run_repeat_n():
    return torch.compile(repeat_n)(torch.randn(4), 3)


def cases():
    x = torch.randn(4)
    return {
        "tensor_comparisons": (Blend(), (x, x.clone())),
        "string_eq": (string_equal, (x, "double")),
        "host_slice_bounds": (Crop(), (torch.randn(4, 4), 3)),
        "arange_to_shape_entry": (positions_over_rows, (x,)),
        "range_over_shape": (rows_over_shape, (x,)),
        "range_over_int_param": (repeat_n, (x, 3)),
        "math_of_shape": (scaled_by_width, (x,)),
        "shape_int_tensors_as_sizes": (chunked, (x,)),
    }
