"""BR001 positives: Python control flow (`if` / `while` / ternary) on a tensor value in a compiled region.

Why: the condition needs the tensor's value on the host, so Dynamo stops the graph there
(torch 2.11: gb_type "Data-dependent branching", GB0170; explain() reason "generic_jump
TensorVariable()") and the device must sync to answer it. Use torch.where / torch.cond instead.
"""

import torch
import torch as T
from torch import nn


def rescale(x: torch.Tensor) -> torch.Tensor:
    # Helper called from NanSafeNorm.forward; `x` is annotated, so its reductions are tensors.
    scale = x.abs().amax()
    return x / scale if scale > 0 else x  # expect: BR001


class NanSafeNorm(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.isnan(x).any():  # expect: BR001
            x = torch.nan_to_num(x)
        return rescale(x)


class MaskedMean(nn.Module):
    def forward(self, x: torch.Tensor, threshold: float = 0.0) -> torch.Tensor:
        mask = x > threshold
        # `mask` is a local assigned from a tensor comparison; `.sum() == 0` is still a tensor.
        if mask.sum() == 0:  # expect: BR001
            return x.mean()
        return (x * mask).sum() / mask.sum()


@T.compile
def power_iteration(v: T.Tensor, tol: float = 1.0) -> T.Tensor:
    # Decorated through the `import torch as T` alias; a `while` on a tensor norm.
    while T.linalg.norm(v) > tol:  # expect: BR001
        v = v / 2
    return v


def cases():
    """Entry points for the proofs: name -> (callable as written, example args)."""
    x = torch.randn(4, 8)
    return {
        "if_any_and_helper_ternary": (NanSafeNorm(), (x,)),
        "if_local_mask_sum": (MaskedMean(), (x,)),
        "while_norm": (power_iteration, (torch.full((8,), 3.0),)),
        "ternary_in_helper": (rescale, (x,)),
    }
