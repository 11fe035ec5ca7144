"""SY003 positives: device tensors indexed (or assigned through) with host-side indices in code a
training step runs.

Why: advanced indexing needs the index on the indexed tensor's device, so torch copies a host
index (a CPU tensor, a numpy array, a Python list of ints) to the device first: a blocking
host->device copy, one synchronization per indexing (measured with
`torch.cuda.set_sync_debug_mode("warn")`, tests/python/test_sync_proofs.py). A matcher that solves
the assignment on the host and a loss that indexes the device outputs per image with its result
pay one per image per call.
"""

import numpy as np
import torch
from torch import nn


class GreedyMatcher(nn.Module):
    """Matches predictions to targets on the host: the cost goes to the CPU once (`.cpu()`), each
    image's assignment is computed with numpy, and the indices come back as CPU tensors."""

    @torch.no_grad()
    def forward(self, outputs, targets):
        sizes = [len(t["boxes"]) for t in targets]
        cost = torch.cdist(outputs["boxes"].flatten(0, 1), torch.cat([t["boxes"] for t in targets]))
        cost = cost.view(outputs["boxes"].shape[0], outputs["boxes"].shape[1], -1).cpu().numpy()  # expect: SY002
        splits = np.split(cost, np.cumsum(sizes)[:-1], axis=-1)
        pairs = [self.assign(c[i]) for i, c in enumerate(splits)]
        return [(torch.as_tensor(i, dtype=torch.int64), torch.as_tensor(j, dtype=torch.int64)) for i, j in pairs]

    @staticmethod
    def assign(cost):
        # One query per target: the cheapest query of each column, in target order.
        return np.argmin(cost, axis=0), np.arange(cost.shape[1])


class MatchedLoss(nn.Module):
    """A set-prediction loss: the matcher is injected by the constructor (its class is not visible
    here), its indices reach the per-loss methods through a dispatch dict."""

    def __init__(self, matcher, num_classes=3):
        super().__init__()
        self.matcher = matcher
        self.num_classes = num_classes

    def forward(self, outputs, targets):
        indices = self.matcher(outputs, targets)
        loss_map = {"labels": self.loss_labels, "boxes": self.loss_boxes}
        return sum(loss_map[name](outputs, targets, indices) for name in ("labels", "boxes"))

    def _src_permutation_idx(self, indices):
        batch_idx = torch.cat([torch.full_like(src, i) for i, (src, _) in enumerate(indices)])
        src_idx = torch.cat([src for (src, _) in indices])
        return batch_idx, src_idx

    def loss_labels(self, outputs, targets, indices):
        logits = outputs["logits"]
        idx = self._src_permutation_idx(indices)
        target_classes_o = torch.cat([t["labels"][j] for t, (_, j) in zip(targets, indices)])  # expect: SY003
        target_classes = torch.full(logits.shape[:2], self.num_classes, dtype=torch.int64, device=logits.device)
        target_classes[idx] = target_classes_o  # expect: SY003
        return nn.functional.cross_entropy(logits.transpose(1, 2), target_classes)

    def loss_boxes(self, outputs, targets, indices):
        idx = self._src_permutation_idx(indices)
        src_boxes = outputs["boxes"][idx]  # expect: SY003
        target_boxes = torch.cat([t["boxes"][i] for t, (_, i) in zip(targets, indices)], dim=0)  # expect: SY003
        weights = torch.ones(outputs["boxes"].shape[:2], device=src_boxes.device)
        pos_ind = [i for i in idx]
        weights[tuple(pos_ind)] = 2.0  # expect: SY003
        return nn.functional.l1_loss(src_boxes, target_boxes) * weights.mean()


class StridedRows(nn.Module):
    """Rows picked by a numpy array and by a Python list of ints: both are built on the host."""

    def forward(self, x):
        keep = np.arange(0, x.shape[0], 2)
        return x[keep] + x[[0, 1, 2]]  # expect: SY003


class HostOrder(nn.Module):
    """An order computed on the host (an argsort of a CPU copy) applied to the device tensor."""

    def forward(self, scores):
        order = torch.argsort(scores.detach().cpu(), descending=True)  # expect: SY002
        return scores[order]  # expect: SY003


class MaskedWrite(nn.Module):
    """A *write* through a host bool mask holds the host (one sync, measured on an H200 with
    torch 2.11), unlike a read through it."""

    def forward(self, x):
        keep = torch.ones(x.shape[-1], dtype=torch.bool)
        keep[0] = False
        y = x.clone()
        y[..., keep] = 0.0  # expect: SY003
        return y


def detection_batch(device, images=2, queries=5, classes=3):
    generator = torch.Generator().manual_seed(0)
    outputs = {
        "logits": torch.randn(images, queries, classes + 1, generator=generator).to(device),
        "boxes": torch.rand(images, queries, 4, generator=generator).to(device),
    }
    targets = [
        {
            "labels": torch.tensor([0, 2, 1][: n]).to(device),
            "boxes": torch.rand(n, 4, generator=generator).to(device),
        }
        for n in (2, 3)[:images]
    ]
    return outputs, targets


def cases(device):
    """Entry points for the proofs: name -> (callable as written, example args)."""
    outputs, targets = detection_batch(device)
    scores = torch.rand(6, device=device)
    return {
        "matched_loss": (MatchedLoss(GreedyMatcher()), (outputs, targets)),
        "numpy_and_list_rows": (StridedRows(), (torch.rand(6, 3, device=device),)),
        "host_order": (HostOrder(), (scores,)),
        "masked_write": (MaskedWrite(), (torch.rand(3, 4, device=device),)),
    }
