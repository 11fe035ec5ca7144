"""A `torch.compiler.disable`d function handed to a compiled function as an argument.

Measured on torch 2.11 (tests/python/test_peer_suite_proofs.py, `disabled_function_argument`):
calling the parameter breaks the graph at the call (GB0098), as a direct call would.
"""

import torch


@torch.compiler.disable
def eager_helper(x):
    return x + 1


@torch.compile(backend="eager")
def apply(fn, x):
    y = x * 2
    return fn(y)


def run(x):
    return apply(eager_helper, x)
