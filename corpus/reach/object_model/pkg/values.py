"""Project classes whose methods Python calls without a call expression naming them."""

import dataclasses

import torch


class Value:
    def __init__(self, t):
        self.t = t

    def __add__(self, other):
        top = self.t.max().item()
        return Value(self.t + other.t * top)

    def __matmul__(self, other):
        top = self.t.max().item()
        return Value(self.t @ other.t * top)

    def __mul__(self, scale):
        top = self.t.max().item()
        return Value(self.t * scale * top)

    def __neg__(self):
        top = self.t.max().item()
        return Value(-self.t * top)

    def __len__(self):
        return int(self.t.sum().item() > 0) + self.t.shape[0]

    def __iter__(self):
        top = self.t.max().item()
        return iter((self.t * top).unbind(0))


class Scaled:
    def __enter__(self):
        self.top = torch.ones(1).max().item()
        return self

    def __exit__(self, *exc):
        self.bottom = torch.zeros(1).max().item()
        return False


@dataclasses.dataclass
class Config:
    scale: float = 2.0

    def __post_init__(self):
        self.scale = float(torch.tensor(self.scale).item())


class Shared:
    def __new__(cls, t):
        obj = super().__new__(cls)
        obj.top = t.max().item()
        return obj

    def __init__(self, t):
        self.t = t


# Dynamo traces `backward` when it traces `Square.apply` (forward), before any backward pass.
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sin(x) * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        top = x.max().item()
        return torch.cos(x) * grad * top


square = Square.apply


class Recorder(torch.nn.Module):
    # Every attribute store on the module (`self.last = ...` in a traced forward) runs this.
    def __setattr__(self, name, value):
        top = torch.ones(1).max().item()
        super().__setattr__(name, value + top if name == "last" else value)


class Box:
    def __init__(self, t):
        self.t = t

    @property
    def top(self):
        return self.t.max().item()
