"""Branches decided by the torch version (src/semantic/model/torch_versions.rs).

Traced code runs only under a torch that has `torch.compile` (>= 2.0), and never below the
project's floor. A branch that no such torch takes is not traced: the `else:` of `_TORCH_GE_2` and
`if IS_OLD_TORCH:` never run under Dynamo; `if not TORCH_GE_2_1:` runs on 2.0 unless the floor is
2.1 or later; both branches of `TORCH_GE_3` may run. tests/torch_version_branches.rs pins the
lines scan reports; tests/python/test_torch_version_branches.py evaluates each flag under the
installed torch.
"""

import torch
from packaging import version

_TORCH_GE_2 = version.parse(torch.__version__) >= version.parse("2.0")
TORCH_GE_2_1 = tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 1)
IS_OLD_TORCH = torch.__version__ < "2.0"
TORCH_GE_3 = torch.__version__ >= "3.0"


class M(torch.nn.Module):
    def forward(self, x):
        if _TORCH_GE_2:
            a = x.untyped_storage()
        else:
            a = x.storage()  # dead: no torch that compiles takes it
        if IS_OLD_TORCH:
            b = x.storage()  # dead
        if not TORCH_GE_2_1:
            c = x.storage()  # live on 2.0; dead with a floor >= 2.1
        if TORCH_GE_3:
            d = x.storage()  # live
        else:
            d = x.storage()  # live
        if not torch.compiler.is_compiling() and _TORCH_GE_2:
            e = x.storage()  # dead: eager only, whatever the flag
        return x
