"""BR007 negatives: pointer checks outside traced code, and look-alikes."""

import torch
from torch import nn


def same_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    # Eager helper, never called from a compiled region.
    return a.data_ptr() == b.data_ptr()


class Identity(nn.Module):
    def forward(self, x):
        if not torch.compiler.is_compiling():
            assert x.data_ptr() != 0
        # id() of a tensor is traced on torch 2.11.
        return x + (id(x) % 1)


def cases():
    return {"eager_only_and_id": (Identity(), (torch.randn(3, 4),))}
