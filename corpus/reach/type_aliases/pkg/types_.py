"""The project's type aliases: `OptTensor` names an optional tensor, `Adj` something else."""

from typing import Optional, Union

from torch import Tensor

OptTensor = Optional[Tensor]
Adj = Union[Tensor, int]
