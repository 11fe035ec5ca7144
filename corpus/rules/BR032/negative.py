"""BR032 negatives: numpy over numbers in traced code, and string arrays built outside it.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): numeric literals compile whole;
a module-level array is a constant to Dynamo.
"""

import numpy as np
import torch

LABELS = np.asarray(["left", "right"])


@torch.compile(backend="eager")
def offsets(x):
    return x + 1, np.array([1, 2])


@torch.compile(backend="eager")
def einsum_spec(x):
    return x + 1, np.einsum("i,i", np.array([1.0, 2.0]), np.array([3.0, 4.0]))


def cases():
    """name -> (callable, args)."""
    x = torch.randn(3)
    return {
        "numbers": (offsets.__wrapped__, (x,)),
        "string_spec_argument": (einsum_spec.__wrapped__, (x,)),
    }
