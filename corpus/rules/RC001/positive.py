"""RC001 positives: Python number attributes bumped in traced code.

Dynamo guards on the value of a Python number it reads from `self`; changing it every call fails the
guard and recompiles, until the recompile limit (8) sends the function back to eager for good.
"""

import torch
from torch import nn


class CountingModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        self.calls += 1  # expect: RC001
        return self.fc(x) * self.calls


class StepScheduledDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0

    def forward(self, x):
        # Rebinding from itself is the same counter in disguise.
        self.step = self.step + 1  # expect: RC001
        return nn.functional.dropout(x, p=0.1 if self.step < 1000 else 0.0, training=self.training)


def cases():
    """Entry points for the proofs: name -> (module, example args)."""
    return {
        "counter": (CountingModel(), (torch.randn(2, 4),)),
        "step_scheduled": (StepScheduledDropout(), (torch.randn(2, 4),)),
    }
