"""BR037 positives: a Python builtin Dynamo has no handler for, called in traced code.

Why: measured on torch 2.11 (backend="eager", fullgraph=True): `eval`, `exec`, `globals()`,
`locals()`, `hash`, `hex` and `open` each end the graph at the call (GB0059 "Failed to trace
builtin operator"); torch 2.2 to 2.8 refuse the same calls (rules/data/builtin_breaks.toml).
"""

import os

import torch
from torch import nn


class EvalActivation(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = "torch.relu"

    def forward(self, x):
        act = eval(self.act)  # expect: BR037
        return act(x)


@torch.compile(backend="eager")
def exec_code(x):
    exec("y = 1")  # expect: BR037
    return x + 1


@torch.compile(backend="eager")
def reads_globals(x):
    scale = globals().get("SCALE", 2)  # expect: BR037
    return x * scale


@torch.compile(backend="eager")
def reads_locals(x):
    names = locals()  # expect: BR037
    return x + len(names)


@torch.compile(backend="eager")
def hashes_key(x):
    key = hash("weight")  # expect: BR037
    return x + (key % 2)


@torch.compile(backend="eager")
def formats_hex(x):
    tag = hex(x.shape[0])  # expect: BR037
    return x + len(tag)


@torch.compile(backend="eager")
def opens_file(x):
    with open(os.devnull) as handle:  # expect: BR037
        handle.read()
    return x + 1


def helper(x):
    return x * eval("2")  # expect: BR037


class CallsHelper(nn.Module):
    def forward(self, x):
        return helper(x)


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "eval": (EvalActivation(), (x,)),
        "exec": (exec_code.__wrapped__, (x,)),
        "globals": (reads_globals.__wrapped__, (x,)),
        "locals": (reads_locals.__wrapped__, (x,)),
        "hash": (hashes_key.__wrapped__, (x,)),
        "hex": (formats_hex.__wrapped__, (x,)),
        "open": (opens_file.__wrapped__, (x,)),
        "helper": (CallsHelper(), (x,)),
    }
