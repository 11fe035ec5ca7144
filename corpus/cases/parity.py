"""Parity cases: training steps whose eager and compiled results differ only by numerical noise (dropout,
bfloat16 autocast, a model wrapped in a plain function) must come out `ok`; a step whose compiled path
really computes something else must still be `parity_fail`. They compile with Inductor (the RNG and the
numerics under test are Inductor's), so keep them tiny."""

import torch
from torch import nn


class DropoutNet(nn.Module):
    def __init__(self, width=64):
        super().__init__()
        self.a = nn.Linear(width, width)
        self.drop = nn.Dropout(0.1)
        self.b = nn.Linear(width, 8)

    def forward(self, x):
        return self.b(self.drop(torch.relu(self.a(x))))


class CompiledPathDiffers(nn.Module):
    """A real numerical regression: under torch.compile the block scales its activations by 1.02."""

    def __init__(self, width=64):
        super().__init__()
        self.a = nn.Linear(width, width)
        self.b = nn.Linear(width, 8)

    def forward(self, x):
        hidden = torch.relu(self.a(x))
        if torch.compiler.is_compiling():
            hidden = hidden * 1.02  # LINE: compiled_differs
        return self.b(hidden)


def squared_mean(out):
    return out.float().pow(2).mean()


def case_dropout_training():
    """Dropout in training mode: Inductor's RNG differs from eager's unless fallback_random is set."""
    torch.manual_seed(0)
    return {"model": DropoutNet(), "args": (torch.randn(32, 64),), "loss": squared_mean}


def case_bf16_training():
    """bfloat16 autocast training step: eager itself is far from exact; compiled must not be worse."""
    torch.manual_seed(0)
    return {"model": DropoutNet(), "args": (torch.randn(32, 64),), "loss": squared_mean, "dtype": "bfloat16"}


def case_wrapped_training():
    """The model reached through a plain function: its parameters' gradients are still compared."""
    torch.manual_seed(0)
    net = DropoutNet()

    def step(x):
        return net(x)

    return {"model": step, "args": (torch.randn(32, 64),), "loss": squared_mean, "dtype": "bfloat16"}


def case_compiled_path_differs():
    torch.manual_seed(0)
    return {"model": CompiledPathDiffers(), "args": (torch.randn(32, 64),), "loss": squared_mean}


class DtypeCache(nn.Module):
    """Caches a tensor attribute (not a buffer) built for the input's dtype, as torchvision's
    AnchorGenerator does. The float64 reference run must leave no float64 cache behind: the compile
    would guard on it and recompile on the first real call."""

    def __init__(self, width=64):
        super().__init__()
        self.a = nn.Linear(width, width)
        self.offsets = None

    def forward(self, x):
        if self.offsets is None or self.offsets.dtype != x.dtype:
            self.offsets = torch.linspace(0, 1, x.shape[-1], dtype=x.dtype, device=x.device)
        return self.a(x + self.offsets)


def case_dtype_cache():
    torch.manual_seed(0)
    return {"model": DtypeCache(), "args": (torch.randn(8, 64),), "loss": squared_mean,
            "compile": {"backend": "aot_eager"}}
