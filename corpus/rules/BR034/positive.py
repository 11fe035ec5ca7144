"""BR034 positives: an object's class swapped inside traced code.

Why: measured on torch 2.11 (backend="eager", fullgraph=True): Dynamo refuses every `__class__`
store, on a local object, a global, a parameter, `self` and a submodule (GB4271 "__class__
assignment on user-defined object"), and on a tensor (GB0058 "Failed to set tensor attribute").
"""

import torch
from torch import nn


class Plain:
    def __init__(self):
        self.scale = 2


class Doubled(Plain):
    pass


class Block(nn.Module):
    def forward(self, x):
        return x + 1


class FastBlock(Block):
    def forward(self, x):
        return x + 2


@torch.compile(backend="eager")
def local_object(x):
    obj = Plain()
    obj.__class__ = Doubled  # expect: BR034
    return x * obj.scale


class SwapsItself(nn.Module):
    def forward(self, x):
        self.__class__ = SwapsItselfFast  # expect: BR034
        return x + 1


class SwapsItselfFast(SwapsItself):
    pass


class SwapsChild(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        self.block.__class__ = FastBlock  # expect: BR034
        return self.block(x)


class Marked(torch.Tensor):
    pass


@torch.compile(backend="eager")
def tensor_class(x: torch.Tensor):
    y = x + 1
    y.__class__ = Marked  # expect: BR034
    return y


swaps_itself = torch.compile(SwapsItself(), backend="eager")
swaps_child = torch.compile(SwapsChild(), backend="eager")


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "local_object": (local_object.__wrapped__, (x,)),
        "self": (SwapsItself(), (x,)),
        "submodule": (SwapsChild(), (x,)),
        "tensor": (tensor_class.__wrapped__, (x,)),
    }
