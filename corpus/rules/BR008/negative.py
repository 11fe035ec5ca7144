"""BR008 negatives: pure checkpointed functions, and the same writes outside a checkpoint."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class PureBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Linear(8, 8)
        self.last_output = None

    def body(self, x):
        parts = []
        parts.append(self.mlp(x))
        return torch.cat(parts).relu()

    def forward(self, x):
        out = checkpoint(self.body, x, use_reentrant=False)
        # Outside the checkpoint the same kind of write is traced.
        self.last_output = out
        return out


def cases():
    return {"pure_body_local_list": (PureBlock(), (torch.randn(2, 8),))}
