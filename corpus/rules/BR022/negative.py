"""BR022 negatives: numpy attributes Dynamo does trace, tensor dtypes, eager code.

`ndim`, `shape`, `size` of an array are constants to Dynamo; a tensor's `.dtype` compared with a
torch dtype is a constant too; a numpy check outside compiled code is not traced.
"""

import numpy as np
import torch


@torch.compile
def array_shape(x, array):
    return x + array.shape[0] + array.ndim


@torch.compile
def tensor_dtype(x):
    y = x + 1
    if x.dtype != torch.float32:
        return y.float()
    return y


def eager_check(targets):
    return all(t.dtype == np.float32 for t in targets)


def cases():
    """name -> (callable, args)."""
    x = torch.randn(3, 2)
    return {
        "array_shape": (array_shape, (x, np.zeros((4, 5), dtype=np.float32))),
        "tensor_dtype": (tensor_dtype, (x,)),
    }
