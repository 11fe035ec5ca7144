"""SY001 negatives: constants filled directly on the device (full/arange), non_blocking copies, moves of tensors
that already live on the device, dtype-only conversions, and host->device copies outside any
compiled region (data loading, training loop). Nothing here may be reported."""

import functools

import torch
from torch import nn


class BoxScaler(nn.Module):
    def forward(self, boxes):
        h, w = boxes.shape[-2], boxes.shape[-1]
        # Filled on the device from Python scalars: kernels only, no host->device copy.
        # (torch.tensor([w, h, w, h], device=...) is NOT this: it copies from pageable host memory
        # and synchronizes like .to(device); measured on an H200.)
        scale = torch.full((4,), w, dtype=boxes.dtype, device=boxes.device)
        scale[1::2] = h
        steps = torch.arange(4, device=boxes.device)
        return boxes * scale + steps


class AsyncOffsets(nn.Module):
    def __init__(self, offsets=(0.5, 0.25)):
        super().__init__()
        self.offsets = list(offsets)

    def forward(self, x, prior):
        # non_blocking=True: the copy is queued, the host does not wait.
        offsets = torch.as_tensor(self.offsets).to(x.device, non_blocking=True)
        # `prior` is an input, not host-built; dtype-only conversion is not a device copy.
        prior = prior.to(x.device)
        half = torch.tensor(0.5).to(dtype=x.dtype)  # a 0-dim CPU scalar joins CUDA math by value
        if not torch.compiler.is_compiling():
            # Eager-only debugging path.
            prior = prior + torch.tensor([0.0]).to(x.device)
        return x + offsets.sum() + prior + half


class HostSideOnly(nn.Module):
    def forward(self, x: torch.Tensor):
        # Moves to the CPU are not host->device copies; as_tensor of a tensor builds nothing;
        # a positional non_blocking (to(device, dtype, non_blocking)) is already asynchronous.
        on_host = torch.tensor([1.0]).to("cpu") + torch.tensor([2.0]).to(torch.device("cpu"))
        same = torch.as_tensor(x).to(x.device)
        queued = torch.tensor([3.0]).to(x.device, torch.float32, True)
        return same * queued + on_host.to(x.device, non_blocking=True)


def collate(samples, device):
    # Data loading: host tensors moved to the device outside the model.
    labels = torch.tensor([label for _, label in samples]).to(device)
    images = torch.stack([img for img, _ in samples]).to(device)
    return images, labels


def train_epoch(model, loader, optimizer, device):
    for samples in loader:
        images, labels = collate(samples, device)
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()


class FactoryOnDevice(nn.Module):
    """A factory given `device=` fills on the device; a dtype-only `.to` of a host factory's
    0-dim result stays on the host (it joins the math as a scalar)."""

    def forward(self, x):
        steps = torch.arange(x.shape[-1], device=x.device)
        half = torch.ones(()).to(torch.float16)
        return x + steps + half


@functools.lru_cache(maxsize=None)
def position_table(length, device):
    # Memoized: in eager mode the copy runs once per (length, device), not per call; compiled,
    # Dynamo ignores the cache wrapper and traces the body (Inductor folds the constant).
    return torch.arange(length).float().to(device)


@functools.cache
def class_weights(device):
    return torch.tensor([1.0, 2.0, 0.5], device=device)


class CachedPositions(nn.Module):
    def forward(self, x):
        return x + position_table(x.shape[-1], x.device) + class_weights(x.device).sum()


def cases(device):
    """Region code for the proofs (0 breaks; on CUDA no sync error): name -> (module, args)."""
    boxes = torch.rand(2, 4, device=device)
    return {
        "built_on_device": (BoxScaler(), (boxes,)),
        "non_blocking_and_dtype_only": (AsyncOffsets(), (boxes, torch.rand(2, 4, device=device))),
        "host_side_only": (HostSideOnly(), (boxes,)),
        "factory_on_device": (FactoryOnDevice(), (boxes,)),
    }
