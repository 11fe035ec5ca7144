"""Subclasses of torch's own Modules that override a method torch's `forward` calls on `self`,
without a `forward` of their own (rules/data/torch_module_hooks.toml): the convolution's
`_conv_forward`, the batch norm's `_check_input_dim`. Calling the module runs the override
(tests/torch_hooks.rs; Dynamo proof in tests/python/test_collaborator_reach_proofs.py).
"""

import torch
from torch import nn


class Conv(nn.Conv2d):
    def _conv_forward(self, x, weight, bias):
        scale = weight.abs().max().item()
        return super()._conv_forward(x, weight / scale, bias)


class Norm(nn.BatchNorm1d):
    def _check_input_dim(self, x):
        low = x.min().item()
        if low > 1e9:
            raise ValueError("out of range")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = Conv(1, 1, 1)
        self.norm = Norm(3)

    def forward(self, x):
        y = self.conv(x)
        return self.norm(y.flatten(1))


def case_net():
    return Net(), (torch.randn(2, 1, 1, 3),)


def case_conv():
    return Conv(1, 1, 1), (torch.randn(2, 1, 1, 3),)
