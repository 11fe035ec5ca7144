"""CR003 negatives: grad-mode context managers Dynamo restores.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): built in the `with` itself, or
built and entered with no graph break between, the compiled call returns in the grad mode it
started in, as eager does.
"""

import torch


@torch.compile(backend="eager")
def built_in_with(x):
    x = x + 1
    with torch.no_grad():
        x = x * 2
    return x


@torch.compile(backend="eager")
def no_break_between(x):
    frozen = torch.no_grad()
    x = x + 1
    with frozen:
        x = x * 2
    return x


def cases():
    """name -> (function, args, grad mode the call starts in)."""
    x = torch.randn(3)
    return {
        "built_in_with": (built_in_with.__wrapped__, (x,), True),
        "no_break_between": (no_break_between.__wrapped__, (x,), True),
    }
