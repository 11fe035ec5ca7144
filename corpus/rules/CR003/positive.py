"""CR003 positives: a torch grad-mode context manager built before a graph break of the function
and entered after it.

Why: measured on torch 2.5, 2.8 and 2.11 (backend="eager"): the compiled call returns with grad
mode still changed (off after `torch.no_grad()`, on after `torch.enable_grad()` entered from
no-grad code), where the same function run eagerly restores it; torch 2.2 raises TypeError at the
`with` (rules/data/crossing_context_managers.toml).
"""

import torch


@torch.compile(backend="eager")
def frozen_update(x):
    frozen = torch.no_grad()
    x = x + 1
    print("collected")  # expect: BR004
    with frozen:  # expect: CR003
        x = x * 2
    return x


@torch.compile(backend="eager")
def grad_island(x):
    tracked = torch.enable_grad()
    y = x.sin()
    print("resuming")  # expect: BR004
    with tracked:  # expect: CR003
        y = y * 2
    return y


def cases():
    """name -> (function, args, grad mode the call starts in)."""
    x = torch.randn(3)
    return {
        "no_grad": (frozen_update.__wrapped__, (x,), True),
        "enable_grad": (grad_island.__wrapped__, (x,), False),
    }
