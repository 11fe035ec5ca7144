"""SY001 positives: a tensor built on the host, then copied to the device with a blocking
`.to(device)` / `.cuda()` inside a compiled region.

Why: a pageable host->device copy with non_blocking=False synchronizes the stream (the host waits
for the GPU to drain its queue); `torch.cuda.set_sync_debug_mode("error")` raises on it. Build the
tensor on the device (`torch.tensor(..., device=x.device)`) instead. Graph breaks: none; this is a
stall, not a break.
"""

import torch
from torch import nn


class BoxScaler(nn.Module):
    def forward(self, boxes):
        h, w = boxes.shape[-2], boxes.shape[-1]
        scale = torch.tensor([w, h, w, h], dtype=boxes.dtype).to(boxes.device)  # expect: SY001
        return boxes * scale


class AnchorOffsets(nn.Module):
    def __init__(self, offsets=(0.5, 0.25)):
        super().__init__()
        self.offsets = list(offsets)

    def forward(self, x):
        # Explicit non_blocking=False is the same blocking copy.
        offsets = torch.as_tensor(self.offsets).to(device=x.device, non_blocking=False)  # expect: SY001
        return x + offsets.sum()


def level_weights(x, weights):
    # Helper called from the compiled function below; stack of host tensors moved with .cuda().
    w = torch.stack([torch.tensor(v) for v in weights]).cuda()  # expect: SY001
    return x * w.sum()


@torch.compile
def weighted(x):
    return level_weights(x, (1.0, 2.0))


class NumpyAnchors(nn.Module):
    def __init__(self, anchors):
        super().__init__()
        self.anchors = anchors  # a numpy array

    def forward(self, x):
        return x + torch.from_numpy(self.anchors).to(x.device)  # expect: SY001


class FactoryMoves(nn.Module):
    """Factories given no `device=` make their tensor on the host: moving it is the same blocking
    copy (the fix creates it on the device: `torch.arange(n, device=x.device)`)."""

    def forward(self, x):
        steps = torch.arange(x.shape[-1]).to(x.device)  # expect: SY001
        return x + steps + torch.zeros(4).cuda()  # expect: SY001


def cases(device):
    """Entry points for the proofs (need CUDA): name -> (callable as written, example args)."""
    import numpy  # only the proofs need it; the rule's scan of this file does not

    boxes = torch.rand(2, 4, device=device)
    return {
        "tensor_to_device": (BoxScaler(), (boxes,)),
        "as_tensor_to_non_blocking_false": (AnchorOffsets(), (boxes,)),
        "stack_of_host_tensors_cuda": (weighted, (boxes,)),
        "numpy_array_to_device": (NumpyAnchors(numpy.array([0.5, 0.25, 0.5, 0.25], dtype="float32")), (boxes,)),
        "factory_moves": (FactoryMoves(), (boxes,)),
    }
