"""CR001 negatives: the same `_shape_as_tensor` code where Dynamo never runs it, and consumers
that do not crash under Dynamo. Nothing in this file may be reported."""

import torch
from torch import _shape_as_tensor as shape_of
from torch import nn


def static_hw(x):
    # The (1, 2) spatial size from static shape ints, filled on the device: no host->device copy
    # (torch.tensor(list, device=cuda) / x.new_tensor(list) still copy from pageable host memory
    # and synchronize: measured on an H200).
    h = torch.full((1, 1), x.shape[2], dtype=torch.long, device=x.device)
    w = torch.full((1, 1), x.shape[3], dtype=torch.long, device=x.device)
    return torch.cat([h, w], dim=1)


def _is_compiling():
    # Project helper predicate: the scanner treats calls to it like torch.compiler.is_compiling().
    return torch.compiler.is_compiling()


def _is_compiling_compat():
    # getattr form used by libraries supporting old torch; same meaning.
    return getattr(torch.compiler, "is_compiling", lambda: False)()


@torch.compiler.disable
def eager_sizes(x):
    # Body of a disabled function is never traced (Dynamo breaks the graph around the call instead).
    return torch.stack([torch._shape_as_tensor(x)[2:4]])


class GuardedSizes(nn.Module):
    def forward(self, x):
        if torch.compiler.is_compiling():
            sizes = static_hw(x)
        else:
            # else of `if is_compiling()`: eager only.
            sizes = torch.stack([torch._shape_as_tensor(x)[2:4]])
        if not _is_compiling():
            # body of `if not <project predicate>()`: eager only.
            sizes = torch.cat([shape_of(x)[2:4].unsqueeze(0), sizes])
        return x.flatten(2), sizes


class EarlyReturnSizes(nn.Module):
    def forward(self, x):
        if _is_compiling_compat():
            return x.flatten(2), None
        # Only reached when not compiling.
        return x.flatten(2), torch.stack([shape_of(x)[2:4]])


class DisabledHelperSizes(nn.Module):
    def forward(self, x):
        return x.flatten(2), eager_sizes(x)


class TensorOfShape(nn.Module):
    def forward(self, x):
        # torch.tensor / torch.as_tensor of _shape_as_tensor do NOT crash under Dynamo on torch 2.11
        # (measured: they return the right tensor), so they are not CR001.
        return torch.tensor(shape_of(x)), torch.as_tensor(shape_of(x)[2:4])


class NormalizedBySize(nn.Module):
    def forward(self, x):
        # Arithmetic with a size makes an ordinary tensor: torch.cat of it traces (torch 2.2, 2.11).
        scaled = x * (x / torch._shape_as_tensor(x)[0])
        return torch.cat((x, scaled))


def log_batch_sizes(batch):
    # Logging helper called only from the training loop below: never traced.
    return torch.stack([torch._shape_as_tensor(t)[1:] for t in batch])


def train_epoch(model, loader, optimizer):
    # Training loop: eager Python around the (possibly compiled) model call.
    for batch in loader:
        sizes = log_batch_sizes(batch)
        loss = model(torch.cat([t.flatten() for t in batch])).sum()
        loss.backward()
        optimizer.step()
    return sizes


def cases():
    """Region code for the proofs (each should compile with no crash)."""
    x = torch.randn(1, 3, 8, 8)
    return {
        "is_compiling_guards": (GuardedSizes(), (x,)),
        "early_return_compat_predicate": (EarlyReturnSizes(), (x,)),
        "disabled_helper": (DisabledHelperSizes(), (x,)),
        "tensor_of_shape": (TensorOfShape(), (x,)),
        "normalized_by_size": (NormalizedBySize(), (x,)),
    }
