"""BR022 positives: `.dtype` of a numpy array compared with a numpy dtype in traced code.

Why: Dynamo traces numpy arrays through torch._numpy and refuses these three attributes
(torch 2.11/2.8: GB0157 "Unsupported ndarray attribute access"; 2.2/2.5: "TODO: add support for
ndarray.dtype"): the graph breaks at the read, and fullgraph=True is an error.
"""

import numpy as np
import torch


@torch.compile
def checked_targets(x, targets):
    y = x + 1
    if any(t.dtype != np.float32 for t in targets):  # expect: BR022
        raise TypeError("targets must be float32")
    return y * 2


def scale_of(x, array):
    y = x * 3
    if array.dtype == np.uint8:  # expect: BR022
        return y / 255
    return y


@torch.compile
def calls_scale(x, array):
    return scale_of(x, array)


@torch.compile
def dtype_compared_not_equal(x, array):
    y = x - 1
    if array.dtype != np.float64:  # expect: BR022
        return y.double()
    return y


def cases():
    """name -> (callable, args)."""
    x = torch.randn(3, 2)
    targets = [np.zeros((4, 5), dtype=np.float32), np.ones((2, 3), dtype=np.float32)]
    return {
        "dtype_compared_in_generator": (checked_targets, (x, targets)),
        "dtype_compared_in_callee": (calls_scale, (x, np.zeros((4, 5), dtype=np.uint8))),
        "dtype_compared_not_equal": (
            dtype_compared_not_equal,
            (x, np.zeros((4, 5), dtype=np.float32)),
        ),
    }
