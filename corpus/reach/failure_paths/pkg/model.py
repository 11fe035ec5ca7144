"""A function that ends in `raise` after early returns: the returns' branches are the success
paths (they never reach the `raise`), only what follows the last of them is failure-only."""

import torch


def smooth_step(x):
    top = x.max().item()
    return x * top


def describe(x):
    return f"empty input, max {x.max().item()}"


def embed(x, basis):
    if basis == "gaussian":
        return x.pow(2).neg().exp()
    if basis == "smooth":
        return smooth_step(x)
    raise ValueError(describe(x))


class Smooth(torch.nn.Module):
    def forward(self, x):
        return embed(x, basis="smooth")


def case(name):
    return globals()[name](), (torch.randn(3, 3),)
