"""BR005 positives: data-dependent Python bools from torch ops inside compiled regions.

Why: torch 2.11 (backend="eager") breaks the graph at each with GB0033 "Data dependent operator";
a tensor slice bound is read with .item() (GB0124).
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class MaybeFull(nn.Module):
    def forward(self, x, mask):
        if torch.equal(mask, torch.ones_like(mask)):  # expect: BR005
            return x * 2
        return x * mask


class Converged(nn.Module):
    def forward(self, new, old):
        done = new.allclose(old)  # expect: BR005
        return new, done


@torch.compile
def same_as_cached(x: torch.Tensor, cached: torch.Tensor) -> torch.Tensor:
    return x + 1 if x.equal(cached) else x - 1  # expect: BR005


def paste(mask, box):
    # type: (Tensor, Tensor) -> Tensor
    return mask[box[1] : box[3], box[0] : box[2]]  # expect: BR005


class Paste(nn.Module):
    def forward(self, mask, box):
        return paste(mask, box) * 2


@torch.compile
def positions_up_to_longest(x, lengths: torch.Tensor):
    # `lengths.max()` is a 0-d tensor: arange needs its value to size the output.
    n = lengths.max()
    return x.sum() + torch.arange(n, device=lengths.device).sum()  # expect: BR005


@torch.compile
def rows_up_to_count(x, counts: torch.Tensor):
    # `range` needs a Python int: the tensor's value (GB0059 on torch 2.11).
    total = x.sum()
    for i in range(counts[0]):  # expect: BR005
        total = total + x[i]
    return total


@torch.compile
def finite_or_zero(x):
    loss = x.abs().mean()
    if math.isnan(loss):  # expect: BR005
        return x * 0
    return x * loss


@torch.compile
def padded_to_longest(x, lengths: torch.Tensor):
    # `lengths.max()` is a 0-d tensor where torch takes ints (sizes, pad widths).
    n = lengths.max()
    rows = x.new_zeros(2, n)  # expect: BR005
    padded = F.pad(x, (0, n))  # expect: BR005
    return rows.sum() + padded.sum() + torch.zeros(n).sum()  # expect: BR005


def repeat_sum(x, times):
    # `times` is a parameter: the compiled call in `run_repeat_sum` gives it a 0-d tensor, and
    # `range` needs its value (GB0059 on torch 2.11).
    out = x
    for _ in range(times):  # expect: BR005
        out = out + x
    return out


def run_repeat_sum():
    compiled = torch.compile(repeat_sum)
    return compiled(torch.randn(4), torch.randint(1, 4, ()))


def positive_count(x):
    return (x > 0).sum()


class PositionsUpToCount(nn.Module):
    """A count a project function returns, as a 0-d tensor, sizes `torch.arange`."""

    def forward(self, x: torch.Tensor):
        n = positive_count(x)
        return torch.arange(n) * 2  # expect: BR005


def cases():
    x = torch.randn(4)
    return {
        "torch_equal_guard": (MaybeFull(), (x, torch.ones(4))),
        "allclose_method": (Converged(), (x, x + 1e-9)),
        "equal_method_ternary": (same_as_cached, (x, x.clone())),
        "tensor_slice_bounds": (Paste(), (torch.randn(8, 8), torch.tensor([1, 2, 5, 6]))),
        "arange_to_tensor_bound": (positions_up_to_longest, (x, torch.tensor([3, 5]))),
        "range_over_tensor_bound": (rows_up_to_count, (x, torch.tensor([3, 2]))),
        "range_over_tensor_param": (repeat_sum, (x, torch.tensor(3))),
        "math_of_tensor": (finite_or_zero, (x,)),
        "tensor_as_size": (padded_to_longest, (x, torch.tensor([3, 5]))),
        "arange_to_a_returned_count": (PositionsUpToCount(), (x,)),
    }
