"""SY004 positives: `torch.tensor` / `torch.as_tensor` of Python data with `device=` in code a
training step runs.

Why: torch builds the tensor on the host and copies it to the device with a blocking copy, one
synchronization per call (measured with `torch.cuda.set_sync_debug_mode("warn")`,
tests/python/test_sync_proofs.py), eager and under `backend="eager"`.
"""

import torch
from torch import nn


class CardinalityLoss(nn.Module):
    """Counts built from the targets every step, then a normalizer from a Python number."""

    def forward(self, logits, targets):
        lengths = torch.as_tensor([len(t["labels"]) for t in targets], device=logits.device)  # expect: SY004
        predicted = (logits.argmax(-1) != logits.shape[-1] - 1).sum(1)
        num_boxes = sum(len(t["labels"]) for t in targets)
        norm = torch.as_tensor([num_boxes], dtype=torch.float, device=logits.device)  # expect: SY004
        return nn.functional.l1_loss(predicted.float(), lengths.float()) / norm.clamp(min=1)


class PerLevelScale(nn.Module):
    """A scale per feature level, built from a Python float inside the loop: one copy per level."""

    def __init__(self, strides=(8, 16, 32)):
        super().__init__()
        self.strides = strides

    def forward(self, features):
        out = []
        for feature, stride in zip(features, self.strides):
            scale = torch.tensor(float(stride), device=feature.device)  # expect: SY004
            out.append(feature * scale)
        return out


def cases(device):
    """Entry points for the proofs: name -> (callable as written, example args)."""
    logits = torch.randn(2, 5, 4, device=device)
    targets = [{"labels": torch.zeros(n, dtype=torch.int64, device=device)} for n in (2, 3)]
    features = [torch.rand(2, 4, device=device) for _ in range(3)]
    return {
        "cardinality_loss": (CardinalityLoss(), (logits, targets)),
        "per_level_scale": (PerLevelScale(), (features,)),
    }
