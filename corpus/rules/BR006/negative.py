"""BR006 negatives: disabled functions called only from eager code, and non-disabled decorators."""

import torch
from torch import nn


@torch.compiler.disable
def log_stats(x: torch.Tensor) -> None:
    pass


def train_step(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    # Eager code (not compiled): calling a disabled function here costs nothing.
    log_stats(x)
    return model(x)


@torch.no_grad()
def normalize(x: torch.Tensor) -> torch.Tensor:
    return x / x.norm()


class Block(nn.Module):
    def forward(self, x):
        if not torch.compiler.is_compiling():
            log_stats(x)
        return normalize(x)


def cases():
    return {"eager_only_disabled_call": (Block(), (torch.randn(3, 4),))}
