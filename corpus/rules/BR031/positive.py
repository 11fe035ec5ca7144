"""BR031 positives: method calls on torch's default generator in traced code.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): Dynamo does not trace the
generator object's methods; the graph breaks at each call (2.11: GB0156 "Unsupported method call").
"""

import torch


@torch.compile(backend="eager")
def noise_with_restored_state(x):
    state = torch.default_generator.get_state()  # expect: BR031
    noise = torch.rand_like(x)
    torch.default_generator.set_state(state)  # expect: BR031
    return x + noise


def reseeded(x):
    torch.random.default_generator.manual_seed(0)  # expect: BR031
    return x + 1


@torch.compile(backend="eager")
def calls_reseeded(x):
    return reseeded(x)


def cases():
    """name -> (callable, args)."""
    x = torch.randn(3)
    return {
        "get_state": (lambda t: (torch.default_generator.get_state(), t + 1), (x,)),
        "set_state": (noise_with_restored_state.__wrapped__, (x,)),
        "manual_seed": (reseeded, (x,)),
        "initial_seed": (lambda t: (torch.default_generator.initial_seed(), t + 1), (x,)),
    }
