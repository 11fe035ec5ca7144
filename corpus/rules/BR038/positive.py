"""BR038 positives: a list of tensors built in traced code, sorted without a key.

Why: measured on torch 2.11 (backend="eager", fullgraph=True): `sorted()` and `list.sort()` over
tensors end the graph (GB0207 "sort with non-constant keys"): for a list, a tuple, a local bound
to one, `reverse=True`.
"""

import torch
from torch import nn


class PicksSmallest(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        losses = [self.a(x).mean(), self.b(x).mean()]
        best = sorted(losses)[0]  # expect: BR038
        return x * best


@torch.compile(backend="eager")
def sorted_display(x):
    return sorted([x.sum(), x.mean()])[0] + x  # expect: BR038


@torch.compile(backend="eager")
def sorted_tuple_reversed(x):
    return sorted((x.sum(), x.max()), reverse=True)[0] + x  # expect: BR038


@torch.compile(backend="eager")
def sorts_in_place(x):
    scores = [x.sum(), x.mean()]
    scores.sort()  # expect: BR038
    return scores[0] + x


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "module_local": (PicksSmallest(), (x,)),
        "display": (sorted_display.__wrapped__, (x,)),
        "tuple_reversed": (sorted_tuple_reversed.__wrapped__, (x,)),
        "list_sort": (sorts_in_place.__wrapped__, (x,)),
    }
