"""A data-dependent `if` on a tensor: Dynamo breaks the graph there on every torch, but torch ≤ 2.5 logs no
graph_breaks record for it (generic_jump compiles the partial graph directly). `check` must still list
the break at the `if` line, with a count that agrees with the list."""

import torch
from torch import nn


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Linear(8, 4)

    def forward(self, images):
        features = self.conv(images)
        pooled = features.mean(dim=(2, 3))
        if pooled.sum() > 0:  # LINE: branch
            pooled = pooled * 2
        scores = self.head(pooled)
        count = int(scores.argmax())  # LINE: item
        return scores[:, :count + 1]


def case_branch_then_item():
    torch.manual_seed(0)
    return {"model": Detector(), "args": (torch.randn(2, 3, 16, 16),), "compile": {"backend": "eager"}}
