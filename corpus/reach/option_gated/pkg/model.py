"""Constructor options nothing in this tree sets (`Net`), and one a construction site sets
(`Block(..., checkpoint_every=True)` in `build.py`). Each `# gated` line breaks under Dynamo only
when its option differs from the default; each `# normal` line whatever the options. Nothing
here builds `Net`: users do, with their own arguments (tests/python/test_option_proofs.py)."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, checkpoint_every=False):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.checkpoint_every = checkpoint_every

    def forward(self, x):
        if self.checkpoint_every:
            x = x + x.mean().item()  # normal: build.py passes checkpoint_every=True
        return self.lin(x)


class Net(nn.Module):
    def __init__(self, dim, self_condition=False, use_ema=False, proj=None, mode="linear", clamp=True):
        super().__init__()
        self.block = Block(dim)
        self.self_condition = self_condition
        self.use_ema = use_ema
        self.has_proj = proj is not None
        self.mode = mode
        self.clamp = clamp

    def _update_ema(self, x):
        return x + x.sum().item()  # gated: reached only through `if self.use_ema:`

    def _shared(self, x):
        return x + x.max().item()  # normal: also called unconditionally

    def _picked(self, x):
        return x + x.min().item()  # gated: only the conditional expression's option side calls it

    def forward(self, x):
        x = self.block(x)
        if self.self_condition and x.sum().item() > 0:  # gated: `and` short-circuits at the default
            x = x + 1
        if self.use_ema:
            x = self._update_ema(x)
            x = self._shared(x)
        x = self._shared(x)
        if self.has_proj:
            x = x * x.abs().sum().item()  # gated: needs proj not None
        if self.mode == "cubic":
            x = x[x > 0]  # gated: needs mode other than "linear"
        x = self._picked(x) if self.use_ema else x
        if self.clamp:
            return x.clamp(-1, 1)
        x = x - x.std().item()  # gated: after an early return taken at the default
        return x



class Inner(nn.Module):
    def __init__(self, dim, flag=False, scale=None, shift=None):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.flag = flag
        self.scale = scale or False
        self.shift = shift if shift is not None else False

    def forward(self, x):
        if self.scale:
            x = x * x.mean().item()  # gated: `scale or False` is False at the default
        if self.shift:
            x = x - x.mean().item()  # gated: `shift if shift is not None else False` too
        return self.lin(x)


class Outer(nn.Module):
    def __init__(self, dim, **inner_options):
        super().__init__()
        self.inner = Inner(dim, **inner_options)
        self.flag = self.inner.flag

    def forward(self, x):
        x = self.inner(x)
        if self.flag:
            x = x + x.max().item()  # gated: borrowed from the submodule's option
        if self.inner.flag:
            x = x + x.min().item()  # gated: the submodule's option read directly
        return x


class Received(nn.Module):
    def __init__(self, net: Inner):
        super().__init__()
        self.net = net
        self.flag = net.flag

    def forward(self, x):
        if self.flag:
            x = x * x.std().item()  # gated: borrowed from a received submodule's option
        return self.net(x)
