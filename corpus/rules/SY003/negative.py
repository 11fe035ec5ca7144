"""SY003 negatives: indices that live where the indexed tensor lives, indices that are Python
scalars (basic indexing: no copy), host tensors indexed on the host, and host indexing outside any
step (data preparation). Nothing here may be reported; the proofs run the step code on CUDA under
`torch.cuda.set_sync_debug_mode("error")`."""

import numpy as np
import torch
from torch import nn


class DeviceMatchedLoss(nn.Module):
    """The same loss as the positive one, with the assignment kept on the device (argmin on the
    device cost): every index is a device tensor, nothing is copied."""

    def forward(self, outputs, targets):
        losses = []
        for b, t in enumerate(targets):
            cost = torch.cdist(outputs["boxes"][b], t["boxes"])
            src = cost.argmin(dim=0)
            tgt = torch.arange(t["boxes"].shape[0], device=cost.device)
            losses.append(nn.functional.l1_loss(outputs["boxes"][b][src], t["boxes"][tgt]))
        return torch.stack(losses).sum()


class ScalarIndices(nn.Module):
    """Python ints, slices, tuples of ints and elements of a host list are basic indexing."""

    def forward(self, x, k: int = 1):
        first = x[0] + x[k] + x[1, :]
        for i in range(x.shape[0]):
            first = first + x[i, :]
        return first + x[(0, 1)] + x[..., -1]


class MaskAndDeviceIndex(nn.Module):
    """A boolean mask and an index computed on the device stay on the device (the mask's
    data-dependent shape is another rule's concern, not a host copy)."""

    def forward(self, x, scores):
        order = torch.argsort(scores, descending=True)
        keep = torch.arange(0, x.shape[0], 2, device=x.device)
        return x[order] + x[keep].sum()


class HostTableLookup(nn.Module):
    """A host tensor indexed with host indices: both on the CPU, no device involved."""

    def __init__(self):
        super().__init__()
        self.names = ["a", "b", "c"]

    def forward(self, x):
        table = torch.arange(10)
        picked = table[np.array([1, 3])]
        label = self.names[1]
        return x + picked.sum() if label else x


class HostMaskRead(nn.Module):
    """Reading through a host *torch* bool mask: torch takes the nonzero on the host and copies
    the positions without holding the host (0 syncs, no host wait: measured on an H200, torch
    2.11, docs/measurements/2026-12-02-h200-index-syncs.md). The data-dependent shape is BR003's."""

    def forward(self, x):
        keep = torch.ones(x.shape[-1], dtype=torch.bool)
        keep[0] = False
        return x[..., keep]  # noqa: BR003 (the dynamic-shape read is BR003's; no host copy)


def rescale_boxes(boxes, h, w):
    # `.copy()` / `.astype()` are methods torch.Tensor lacks: these are numpy arrays on the host,
    # and indexing them with a list copies nothing to any device.
    out = boxes.copy()
    out[:, [0, 2]] *= w
    ints = boxes.astype(np.int64)
    ints[:, [1, 3]] = h
    return out, ints


class NumpyBoxes(nn.Module):
    def forward(self, x, boxes):
        rescale_boxes(boxes, 2, 3)
        return x * 2


def prepare_batch(images, order):
    # Data preparation outside the step: host indexing of host data.
    return [images[i] for i in np.argsort(order)]


def cases(device):
    """Step code for the proofs: name -> (callable, example args)."""
    generator = torch.Generator().manual_seed(0)
    outputs = {"boxes": torch.rand(2, 5, 4, generator=generator).to(device)}
    targets = [{"boxes": torch.rand(n, 4, generator=generator).to(device)} for n in (2, 3)]
    return {
        "device_matched_loss": (DeviceMatchedLoss(), (outputs, targets)),
        "scalar_indices": (ScalarIndices(), (torch.rand(4, 4, device=device),)),
        "numpy_boxes": (NumpyBoxes(), (torch.rand(4, device=device), np.random.rand(3, 4))),
        "mask_and_device_index": (MaskAndDeviceIndex(), (torch.rand(6, 3, device=device), torch.rand(6, device=device))),
    }
