"""BR031 negatives: the generator's attributes, and its state handled outside traced code.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): reading
`torch.default_generator.device` compiles whole; code Dynamo does not trace cannot break.
"""

import torch


@torch.compile(backend="eager")
def generator_device(x):
    return x + 1, torch.default_generator.device


def run_with_saved_state(model, x):
    # Not compiled: the state is saved and restored around the compiled call.
    state = torch.default_generator.get_state()
    out = model(x)
    torch.default_generator.set_state(state)
    return out


def cases():
    """name -> (callable, args)."""
    return {"device_attribute": (generator_device.__wrapped__, (torch.randn(3),))}
