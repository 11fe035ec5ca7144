"""BR038 negatives: near misses of sorting tensors in traced code.

Why: measured on torch 2.11 (backend="eager", fullgraph=True), each compiles whole: a `key=`
returning a Python value, a list of ints or shapes, `min()` / `max()` over tensors, a tensor's own
`.sort()` (torch.sort), and `sorted` shadowed by a local function.
"""

import torch


@torch.compile(backend="eager")
def sorted_by_shape(x):
    return sorted([x, x[:2]], key=lambda t: t.shape[0])[0]


@torch.compile(backend="eager")
def sorted_ints(x):
    sizes = [x.shape[0], 2]
    sizes.sort()
    return sorted([3, 1])[0] + x + sizes[0]


@torch.compile(backend="eager")
def min_max_of_tensors(x):
    return min([x.sum(), x.mean()]) + max(x.sum(), x.mean()) + x


@torch.compile(backend="eager")
def tensor_sort(x):
    y = x * 2
    values, _ = y.sort()
    return values


@torch.compile(backend="eager")
def shadowed(x):
    def sorted(items):
        return items

    return sorted([x.sum(), x.mean()])[0] + x


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "key": (sorted_by_shape.__wrapped__, (x,)),
        "ints": (sorted_ints.__wrapped__, (x,)),
        "min_max": (min_max_of_tensors.__wrapped__, (x,)),
        "tensor_sort": (tensor_sort.__wrapped__, (x,)),
        "shadowed": (shadowed.__wrapped__, (x,)),
    }
