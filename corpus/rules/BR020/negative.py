"""BR020 negatives: classes defined outside traced code, used from it.

Why: a class object defined at module level (or in `__init__`, which Dynamo does not trace for
a module built eagerly) is a constant to Dynamo: instantiating it compiles in one graph
(measured on torch 2.2, 2.5, 2.8 and 2.11, backend="eager").
"""

from typing import NamedTuple

import torch
from torch import nn


class Output(NamedTuple):
    logits: torch.Tensor


class ModuleLevelOutput(nn.Module):
    def forward(self, x):
        return Output(x.sin() * 2)


class BuiltInInit(nn.Module):
    def __init__(self):
        super().__init__()

        class Scale(nn.Module):
            def forward(self, x):
                return x * 2

        self.scale = Scale()

    def forward(self, x):
        return self.scale(x.sin())


def cases():
    """name -> (callable, args)."""
    x = torch.randn(3, 4)
    return {
        "module_level_class": (ModuleLevelOutput(), (x,)),
        "class_defined_in_init": (BuiltInInit(), (x,)),
    }
