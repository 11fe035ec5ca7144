"""A project that declares no torch floor (tests/installed_torch_floor.rs).

Dynamo refuses `torch.sparse_coo_tensor` from torch 2.5 on (rules/data/skipped_functions.toml,
measured on 2.2, 2.5, 2.8 and 2.11; torch 2.2 traces it). With no floor declared, the torch
installed in the environment scan is given (`--python-env`, or the active `$VIRTUAL_ENV`) is the
oldest this project runs on: the break is reported when that torch is 2.5 or newer, and not
without an environment or with an older one.
`copy.copy` is skipped on every torch and always reported.
"""

import copy

import torch


@torch.compile(backend="eager")
def build(x, indices):
    adjacency = torch.sparse_coo_tensor(indices, x, (3, 3))
    return adjacency, x * 2


@torch.compile(backend="eager")
def snapshot(x, state):
    state = copy.copy(state)
    return x * 2, state


def run():
    """Both compiled functions, each a frame of its own (a break in one does not hide the other)."""
    x = torch.tensor([1.0, 2.0])
    build(x, torch.tensor([[0, 1], [1, 2]]))
    snapshot(x, {})
