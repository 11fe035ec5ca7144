"""BR009 positives: nn.Parameter / nn.Buffer constructed in traced code.

Why: torch 2.11 (backend="eager"): nn.Buffer(t) breaks with GB0116, nn.Parameter(t) with GB0264,
each followed by GB0119 for the module being built. The module below is built inside the loss
function on every call, so its __init__ is traced (the scanner follows the constructor call).
"""

import torch
from torch import nn


class SetCriterion(nn.Module):
    def __init__(self, num_classes: int):
        super().__init__()
        weight = torch.ones(num_classes + 1)
        self.empty_weight = nn.Buffer(weight)  # expect: BR009

    def forward(self, logits, labels):
        return nn.functional.cross_entropy(logits, labels, self.empty_weight)


@torch.compile
def detection_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    criterion = SetCriterion(3)
    return criterion(logits, labels)


class Rescaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = None

    def forward(self, x):
        scale = nn.Parameter(torch.ones(x.shape[-1]))  # expect: BR009
        return x * scale


def cases():
    """name -> (callable, args, expected GB codes)."""
    return {
        "buffer_in_module_built_per_call": (
            detection_loss,
            (torch.randn(5, 4), torch.tensor([0, 1, 2, 3, 0])),
            {"GB0116", "GB0119"},
        ),
        "parameter_in_forward": (Rescaler(), (torch.randn(2, 4),), {"GB0264"}),
    }
