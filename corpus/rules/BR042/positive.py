"""BR042 positives: a store to a tensor attribute Dynamo refuses, in traced code.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager", fullgraph=True): storing
`requires_grad` on the function's tensor input or on a tensor it computed is a graph break
(GB0206 "setattr() on Tensor.requires_grad" on 2.11; rules/data/tensor_attribute_stores.toml).
"""

import torch
from torch import nn


class Probe(nn.Module):
    def forward(self, x):
        x.requires_grad = True  # expect: BR042
        return x * 2


class Checkpointed(nn.Module):
    def forward(self, x):
        hidden = x[:, None] * 2
        hidden.requires_grad = True  # expect: BR042
        return hidden + 1


def cases():
    """name -> (module, args)."""
    x = torch.ones(3)
    return {"input": (Probe(), (x,)), "computed": (Checkpointed(), (x,))}
