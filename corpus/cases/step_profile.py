"""Cases for `graphbreak check --profile` (tests/python/test_profile.py): host-device syncs at known
lines in the forward and the loss, and a GPU-bound step. Not in pyproject.toml's case list: the
figures they exist for (kernels, GPU busy share, syncs) need CUDA; on CPU `--profile` records only
the phase split."""

import time

import torch
from torch import nn


class GatedLinear(nn.Module):
    def __init__(self, width=64):
        super().__init__()
        self.linear = nn.Linear(width, width)

    def forward(self, x):
        y = self.linear(x)
        if bool((y > -1e4).all()):  # LINE: forward_sync
            y = y * 2
        return y


def case_sync_sites(width=64, batch=32):
    """A training step a few microseconds of GPU work long, with one sync in the forward (a tensor
    `if`) and one in the loss (`.item()`): host-bound by construction."""
    torch.manual_seed(0)
    model = GatedLinear(width)

    def loss(outputs):
        scale = outputs.abs().max().item()  # LINE: loss_sync
        return outputs.pow(2).mean() / (1.0 + scale)

    return {
        "model": model,
        "args": (torch.randn(batch, width),),
        "loss": loss,
        "optimizer": torch.optim.SGD(model.parameters(), lr=1e-3),
    }


def case_gpu_bound(width=4096, depth=8, batch=8192):
    """Large matrix products and no syncs: the GPU is busy for most of the step."""
    torch.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.ReLU()]
    model = nn.Sequential(*layers).eval()
    return {"model": model, "args": (torch.randn(batch, width),), "dtype": "bfloat16"}


class SlowSGD(torch.optim.SGD):
    """An optimizer whose step costs a fixed 30 ms of host time: big enough to dominate a tiny model's
    step, so a pass that leaves it out reads far less than one that steps it."""

    def step(self, closure=None):
        time.sleep(0.03)
        return super().step(closure)


def case_slow_optimizer(width=16, batch=8):
    """A training step whose time is almost all the optimizer's: the timing pass and the profile pass
    must both step it (one definition of a step), so both read ≥ 30 ms and agree."""
    torch.manual_seed(0)
    model = nn.Linear(width, width)
    return {
        "model": model,
        "args": (torch.randn(batch, width),),
        "loss": lambda outputs: outputs.pow(2).mean(),
        "optimizer": SlowSGD(model.parameters(), lr=1e-3),
    }
