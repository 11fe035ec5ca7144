"""BR008 positives: checkpointed functions that write outside state, in compiled regions.

Why: torch 2.11 (backend="eager") traces the checkpointed function as a higher-order op body and
breaks with GB0067 "HOP: Unsafe side effect" at each of these; from torch 2.5 on Dynamo's
innermost user frame is the write itself (2.2: the checkpoint call), where BR008 reports it.
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

SEEN = []


class CountingBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Linear(8, 8)
        self.last_input = None

    def body(self, x):
        self.last_input = x  # expect: BR008
        return self.mlp(x).relu()

    def forward(self, x):
        return checkpoint(self.body, x, use_reentrant=False)


def record_and_sin(x):
    SEEN.append(1)  # expect: BR008
    return x.sin()


@torch.compile
def checkpointed_append(x: torch.Tensor) -> torch.Tensor:
    return torch.utils.checkpoint.checkpoint(record_and_sin, x, use_reentrant=False) + 1


def cases():
    x = torch.randn(2, 8)
    return {
        "attribute_write": (CountingBlock(), (x,)),
        "global_list_append": (checkpointed_append, (x,)),
    }
