"""BR010 negatives: nothing here calls a function Dynamo skips while compiling.

Why: measured on torch 2.11 (backend="eager"): every case compiles with no graph break.
"""

import math
import operator
import os

import torch
from torch import nn


class EagerOnlySeed(nn.Module):
    def forward(self, x):
        # Not traced: the guard is False while Dynamo compiles.
        if not torch.compiler.is_compiling():
            torch.manual_seed(0)
        return x + 1


class PlainChecks(nn.Module):
    def forward(self, x):
        # The builtin isinstance and an environment *read* trace.
        if isinstance(x, torch.Tensor) and os.environ.get("GRAPHBREAK_CORPUS_UNSET") is None:
            x = x + 1
        return x


class InGraphDeviceQuery(nn.Module):
    def forward(self, x):
        # torch.accelerator.is_available is in Dynamo's in-graph functions, not skipped.
        if torch.accelerator.is_available():
            return x + 1
        return x - 1


def copy(options):
    # A project function named like a skipped stdlib one: Dynamo inlines it.
    return dict(options)


class TracedStdlibCalls(nn.Module):
    def forward(self, x, options):
        # math and operator are traced (constant-folded / mapped to ops), not skipped.
        options = copy(options)
        return operator.mul(x, math.sqrt(options["scale"]))


def halve(x):
    return x / 2


class WrappedProjectFunction(nn.Module):
    def forward(self, x):
        # `torch.no_grad()(fn)(x)` runs `fn(x)`: a project function is traced through the wrapper.
        return torch.no_grad()(halve)(x)


def seed_everything(seed):
    # Training-script code, never compiled.
    torch.manual_seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)


def cases():
    """name -> (callable, args)."""
    x = torch.randn(2, 4)
    return {
        "eager_only_seed": (EagerOnlySeed(), (x,)),
        "plain_checks": (PlainChecks(), (x,)),
        "in_graph_device_query": (InGraphDeviceQuery(), (x,)),
        "traced_stdlib_calls": (TracedStdlibCalls(), (x, {"scale": 4.0})),
        "wrapped_project_function": (WrappedProjectFunction(), (x,)),
    }
