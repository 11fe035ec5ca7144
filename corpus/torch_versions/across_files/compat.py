"""Torch-version flags defined in one module and read in another (model.py).

`int(torch.__version__.split(".")[0])` is the major part as an int: `>= 2` holds on every torch
that has `torch.compile`. The flags are read elsewhere by import (`from .compat import ...`) and
as a module attribute (`compat.IS_TORCH_1`); scan resolves either to the formula here when it
links the files.
"""

import torch

TORCH_GE_2 = int(torch.__version__.split(".")[0]) >= 2
IS_TORCH_1 = not TORCH_GE_2
TORCH_GE_3 = int(torch.__version__.split(".")[0]) >= 3
