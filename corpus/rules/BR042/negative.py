"""BR042 negatives: what Dynamo traces.

Why: measured on torch 2.11 (backend="eager", fullgraph=True): a tensor built with
`requires_grad=False` from the start, and an attribute stored on a plain Python object the function
created, trace.
"""

import torch
from torch import nn


class Record:
    pass


class Builds(nn.Module):
    def forward(self, x):
        record = Record()
        record.requires_grad = True
        frozen = torch.zeros(3, requires_grad=False)
        return x * 2 + frozen, record.requires_grad


def cases():
    """name -> (module, args)."""
    return {"plain_object": (Builds(), (torch.ones(3),))}
