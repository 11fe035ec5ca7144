"""SY004 negatives: values filled on the device, tensors passed to `as_tensor` (returned as they
are), host tensors without `device=` (another rule's concern when moved), `device="cpu"`, and
host data outside any step. Nothing here may be reported; the proofs run the step code on CUDA
under `torch.cuda.set_sync_debug_mode("error")`."""

import torch
from torch import nn


class DeviceFills(nn.Module):
    def forward(self, logits, targets):
        # Filled on the device from a Python number: a kernel, no copy.
        norm = torch.full((1,), float(len(targets)), device=logits.device)
        # `as_tensor` of a tensor already on the device returns it.
        same = torch.as_tensor(logits, device=logits.device)
        return same.sum() / norm


class HostSide(nn.Module):
    def forward(self, x):
        # Stays on the host: no device copy here.
        offsets = torch.tensor([1.0, 2.0], device="cpu")
        return x + offsets.sum()


def make_targets(device):
    # Data preparation outside the step.
    return [{"labels": torch.tensor([0, 1], device=device)}]


def cases(device):
    """Step code for the proofs: name -> (callable, example args)."""
    logits = torch.randn(2, 5, 4, device=device)
    targets = [{"labels": torch.zeros(2, dtype=torch.int64, device=device)}]
    return {"device_fills": (DeviceFills(), (logits, targets))}
