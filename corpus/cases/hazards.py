"""Runnable `graphbreak check` cases for the torch.compile hazards the scanner's rules describe.

Each `case_*` factory returns a dict (see docs/check-protocol.md). The Dynamo-level cases pin
`compile={"backend": "eager"}`: graph capture, breaks and recompiles are decided by Dynamo before any
backend runs, so the eager backend gives the same facts in seconds.

The line markers (`# LINE: name`) let tests find the exact line a fact must point at without hard-coding
line numbers.
"""

import torch
from torch import nn


class ShapeAsTensorHead(nn.Module):
    """The seed's crash: `_shape_as_tensor` slices stacked into a tensor (CR001).

    Eager returns a tensor from `_shape_as_tensor`; under Dynamo it becomes a `torch.Size`, and
    `torch.stack` raises `TypeError: expected Tensor as element 0 in argument 0, but got torch.Size`.
    """

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, kernel_size=3, padding=1)

    def forward(self, images):
        features = self.conv(images)
        spatial_shapes = torch.stack([torch._shape_as_tensor(f)[2:4] for f in [features]])  # LINE: stack
        return features.mean(dim=(2, 3)) * spatial_shapes.float().prod()


def case_shape_as_tensor_crash():
    return {
        "model": ShapeAsTensorHead(),
        "args": (torch.randn(2, 3, 16, 16),),
        "compile": {"backend": "eager"},
    }


class ItemNormalizer(nn.Module):
    """`.item()` in forward: a graph break (and a device→host sync on GPU) on every call (SY002)."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        y = self.proj(x)
        scale = y.abs().max().item()  # LINE: item
        return y / (scale + 1.0)


def case_item_break():
    return {
        "model": ItemNormalizer(),
        "args": (torch.randn(4, 8),),
        "compile": {"backend": "eager"},
    }


class CallCounter(nn.Module):
    """A Python int attribute bumped in forward and read by the forward (a step counter gating a
    schedule): Dynamo specializes on its value, so every call fails the guard and recompiles until the
    recompile limit gives up. The output does not depend on the count here, so parity still holds."""

    def __init__(self, warmup_calls=10_000):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.calls = 0
        self.warmup_calls = warmup_calls

    def forward(self, x):
        self.calls += 1  # LINE: calls
        y = self.proj(x)
        if self.calls > self.warmup_calls:
            y = y * 0.5
        return y


ATTRIBUTE_SCHEDULE_LENGTH = 5


def case_attribute_recompile():
    x = torch.randn(4, 8)
    return {
        "model": CallCounter(),
        "inputs": [(x,)] * ATTRIBUTE_SCHEDULE_LENGTH,
        "compile": {"backend": "eager"},
    }


def case_attribute_recompile_limit():
    """The same hazard over more calls than the recompile limit (8 by default): falls back to eager."""
    x = torch.randn(4, 8)
    return {
        "model": CallCounter(),
        "inputs": [(x,)] * 12,
        "compile": {"backend": "eager"},
    }


class TinyDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1)
        self.head = nn.Conv2d(8, 4, kernel_size=1)

    def forward(self, images):
        return self.head(torch.relu(self.stem(images))).mean(dim=(2, 3))


MULTI_SCALE_SIZES = (32, 48, 32, 64)


def case_multi_scale():
    """Multi-scale training: the image size changes per batch. Static shapes recompile once per
    distinct size; automatic dynamic (dynamic=None) recompiles once, then reuses a dynamic graph."""
    return {
        "model": TinyDetector(),
        "inputs": [(torch.randn(2, 3, size, size),) for size in MULTI_SCALE_SIZES],
        "compile": {"backend": "eager"},
    }


class BranchOnTensor(nn.Module):
    """Data-dependent Python control flow (BR001): under fullgraph=True Dynamo refuses it."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        y = self.proj(x)
        if y.sum() > 0:  # LINE: branch
            return y * 2
        return y


def case_fullgraph_branch():
    return {
        "model": BranchOnTensor(),
        "args": (torch.randn(4, 8),),
        "compile": {"backend": "eager", "fullgraph": True},
    }
