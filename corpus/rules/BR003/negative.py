"""BR003 negatives: static-shape look-alikes that Dynamo traces into one graph (torch 2.11, measured)."""

import numpy as np
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
        idx = torch.arange(3, device=x.device)
        # Integer-tensor and slice indexing keep static shapes (the index made on x's device:
        # a host index would be a host->device copy, SY003).
        return x[idx] + x[0] + x[:, 1:].sum() + x[order].sum()


@torch.compile
def onehot_fixed(labels: torch.Tensor) -> torch.Tensor:
    return F.one_hot(labels, num_classes=4).float() + F.one_hot(labels, 4).float()


@torch.compile
def solve_and_sequence_loss(a: torch.Tensor, b: torch.Tensor, log_probs, targets) -> torch.Tensor:
    # Neighbours of lstsq / ctc_loss with static shapes: a square solve and a per-step loss.
    solution = torch.linalg.solve(a, b)
    return solution.sum() + F.nll_loss(log_probs, targets)


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


def dense_experts(self, x: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    # Every expert on every token, weighted: static shapes.
    return torch.einsum("te,tf->tf", weights, x) / self.num_experts


EXPERTS_FUNCTIONS = {"dense": dense_experts}


def use_experts_implementation(experts_class=None, *, registry=EXPERTS_FUNCTIONS):
    """A class decorator that replaces `forward` with a dispatcher (transformers' MoE experts): the
    class's own eager loop runs only when the configured implementation is "eager"."""

    def wrapper(experts_class):
        original_forward = experts_class.forward

        def forward(self, *args, **kwargs):
            experts_forward = registry.get(self.implementation, original_forward)
            return experts_forward(self, *args, **kwargs)

        experts_class.forward = forward
        return experts_class

    if experts_class is not None:
        return wrapper(experts_class)
    return wrapper


@use_experts_implementation
class Experts(nn.Module):
    def __init__(self, num_experts: int = 4, implementation: str = "dense"):
        super().__init__()
        self.num_experts = num_experts
        self.implementation = implementation

    def forward(self, x: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        out = torch.zeros_like(x)
        expert_hit = (weights.sum(0) > 0).nonzero()
        for expert_idx in expert_hit:
            out = out + x * weights[:, expert_idx]
        return out


class SparseMoeBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = Experts()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weights = torch.softmax(x[:, :4], dim=-1)
        return self.experts(x, weights)


class FactoryIndices(nn.Module):
    """Factories of integer (not bool) tensors used as indices: gathers of static shape."""

    def forward(self, x):
        first = torch.zeros(2, dtype=torch.long, device=x.device)
        ones = torch.full((2,), 1, device=x.device)
        return x[first] + x[ones]


@torch.compile
def clamp_by_host_weights(x, weights):
    # Assignment through a numpy mask: Dynamo traces it as a masked fill of static shape.
    cond = np.asarray(weights) * 2
    x = x.clone()
    x[cond < 0] = 0
    return x


@torch.compile
def pick_by_count(pair, counts):
    # A comparison of list elements indexing a plain name: a bool picking from a tuple.
    return pair[counts[0] > 1]


def rank_order(x):
    # A helper scan does not look into (it returns integer indices).
    return torch.argsort(x, dim=0)


class JoinedIndex(nn.Module):
    """Integer indices on both branches of an `if` (one of them unknown to scan), and a mask
    that every path replaces before the read: no boolean mask reaches either index."""

    def __init__(self, descending: bool = True):
        super().__init__()
        self.descending = descending

    def forward(self, x):
        if self.descending:
            order = torch.argsort(x, dim=0, descending=True)
        else:
            order = rank_order(x)
        if self.descending:
            pick = x[:, 0] > 0
        else:
            pick = rank_order(x)
        pick = torch.arange(x.shape[0] - 1, device=x.device)
        return torch.gather(x, 0, order) + x[pick].sum()


def pick_flagged(flags, values):
    # `flags` is a parameter its only caller gives a list: `flags > 0` is never a tensor mask
    # here (a list compared to an int raises in eager, so the caller passes an int instead).
    keep = flags > 0
    return values[keep]


@torch.compile
def pick_second(values):
    return pick_flagged(1, values) * 2


def drop_masked(x, mask):
    # `mask` takes several types (the body tests it), and its only caller passes `None`: the
    # tested branch never runs.
    if isinstance(mask, torch.Tensor):
        return x[mask > 0]
    return x


@torch.compile
def keep_all_rows(x):
    return drop_masked(x, None) * 2


def select_columns(x, index):
    # `index` is a parameter every traced call gives integer indices: no mask.
    return x[:, index]


class ColumnPick(nn.Module):
    def forward(self, x: torch.Tensor):
        return select_columns(x, torch.arange(2, device=x.device))


def first_rows_flag(x, keep):
    # `keep` is what the caller passes compared with 0: a Python bool for an int.
    flag = keep > 0
    return x, flag


class HostFlagThroughReturn(nn.Module):
    """A local a project function returned, where that function returns a host bool to this
    call (it passes an int): `rows[True]` adds a dimension, no data-dependent shape."""

    def forward(self, x):
        rows, flag = first_rows_flag(x, 3)
        return rows[flag]


def cases():
    x = torch.randn(4, 3)
    labels = torch.tensor([0, 2, 1, 3])
    return {
        "host_flag_returned_to_an_int_argument": (HostFlagThroughReturn(), (x,)),
        "masked_fill_and_where": (MaskedFill(), (x,)),
        "integer_indexing": (Gather(), (x, torch.tensor([1, 0, 2, 3]))),
        "one_hot_with_num_classes": (onehot_fixed, (labels,)),
        "repeat_interleave_int": (repeat_static, (torch.randn(3),)),
        "solve_and_nll_loss": (
            solve_and_sequence_loss,
            (torch.randn(3, 3) + 3 * torch.eye(3), torch.randn(3, 2), torch.randn(4, 5).log_softmax(-1), torch.tensor([0, 1, 2, 3])),
        ),
        "eager_only_unique": (eager_only_unique, (torch.randn(3),)),
        "forward_replaced_by_a_dispatcher": (SparseMoeBlock(), (torch.randn(5, 8),)),
        "integer_factory_indices": (FactoryIndices(), (x,)),
        "assignment_through_numpy_mask": (clamp_by_host_weights, (torch.randn(3), np.array([1.0, -1.0, 2.0]))),
        "integer_indices_on_both_branches": (JoinedIndex(), (x,)),
        "bool_index_into_tuple": (pick_by_count, ((torch.randn(2), torch.randn(2)), [2, 0])),
        "bool_from_a_parameter_given_an_int": (pick_second, (torch.randn(3),)),
        "parameter_tested_as_a_tensor_given_none": (keep_all_rows, (torch.randn(4, 3),)),
        "integer_indices_passed_as_an_argument": (ColumnPick(), (x,)),
    }
