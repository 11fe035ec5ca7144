"""BR035 negatives: the same method names where Dynamo traces, or where the receiver is no tensor.

Why: measured on torch 2.11 (backend="eager", fullgraph=True): each function compiles as one
graph. `.backward()` outside the compiled function runs eagerly; a method of the same name on an
object that is not a tensor is that object's method (Dynamo inlines it); `requires_grad` read (no
call) and `.detach()` trace; a module's own method named like a Tensor method is the module's;
`requires_grad_(False)` traces (torch 2.5 to 2.11; the table's `traces_with`).
"""

import torch
from torch import nn


class Tape:
    def __init__(self, scale=2):
        self.scale = scale

    def backward(self):
        return self.scale


class Scaled(nn.Module):
    def storage_offset(self):
        return 0

    def forward(self, x):
        return x + self.storage_offset()


@torch.compile(backend="eager")
def forward_only(model, batch):
    return model(batch).sum()


def step(model, batch):
    loss = forward_only(model, batch)
    loss.backward()  # eager: outside the compiled function
    return loss


@torch.compile(backend="eager")
def object_method(x):
    tape = Tape()
    return x + tape.backward()


@torch.compile(backend="eager")
def reads_flag(x):
    if x.requires_grad:
        return x.detach() + 1
    return x


@torch.compile(backend="eager")
def freezes_grad(x):
    y = x * 2
    y.requires_grad_(False)
    return y + 1


@torch.compile(backend="eager")
def grad_as_asked(x, requires_grad=False):
    y = x * 2
    y.requires_grad_(requires_grad)  # a flag: with its default False it traces
    return y + 1


def cases():
    """name -> (callable, args)."""
    return {
        "object_method": (object_method.__wrapped__, (torch.randn(4),)),
        "module_method": (Scaled(), (torch.randn(4),)),
        "reads_flag": (reads_flag.__wrapped__, (torch.randn(4),)),
        "requires_grad_false": (freezes_grad.__wrapped__, (torch.randn(4),)),
        "requires_grad_flag": (grad_as_asked.__wrapped__, (torch.randn(4),)),
    }
