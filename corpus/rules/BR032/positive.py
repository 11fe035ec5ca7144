"""BR032 positives: numpy calls over literals holding strings in traced code.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): Dynamo runs numpy on torch
tensors, which hold no strings; the graph breaks at the call (2.11: GB0087).
"""

import numpy as np
import torch


@torch.compile(backend="eager")
def labels_with(x):
    labels = np.asarray(["left", "right"])  # expect: BR032
    return x + 1, labels


def pick_side(x):
    return x * 2, np.random.choice(("left", "right"))  # expect: BR032


@torch.compile(backend="eager")
def calls_pick_side(x):
    return pick_side(x)


def cases():
    """name -> (callable, args)."""
    x = torch.randn(3)
    return {
        "asarray_of_strings": (labels_with.__wrapped__, (x,)),
        "choice_of_strings": (pick_side, (x,)),
        "mixed_array": (lambda t: (t + 1, np.array([1, "b"])), (x,)),
    }
