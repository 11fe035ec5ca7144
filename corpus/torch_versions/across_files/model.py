"""Branches decided by torch-version flags of another module (compat.py).

Under Dynamo, `else:` of `TORCH_GE_2` and the bodies of `if compat.IS_TORCH_1:` and
`if not torch.compiler.is_compiling() and TORCH_GE_2:` never run, so their `x.storage()` (a
graph break on every torch that compiles) is not reported. Both sides of `TORCH_GE_3` may run.
tests/torch_version_branches.rs pins the reported lines; tests/python/test_torch_version_branches.py
compiles `Model` and checks that Dynamo breaks only where scan says.
"""

import torch

from . import compat
from .compat import TORCH_GE_2, TORCH_GE_3


class Model(torch.nn.Module):
    def forward(self, x):
        if TORCH_GE_2:
            y = x + 1
        else:
            y = x.storage()  # dead
        if compat.IS_TORCH_1:
            y = x.storage()  # dead
        if not torch.compiler.is_compiling() and TORCH_GE_2:
            y = x.storage()  # dead: eager only
        if TORCH_GE_3:
            y = y + x.storage().size()  # live on a torch 3
        return y * 2
