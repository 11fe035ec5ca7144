"""RC001 negatives: counters that do not recompile, or are never traced. Nothing here is reported."""

import torch
from torch import nn


class BufferCounter(nn.Module):
    def __init__(self):
        super().__init__()
        # A tensor buffer updated in place: part of the graph, no guard on its value.
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.calls += 1
        return x * 2


class EagerStepCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.steps = 0

    def forward(self, x):
        # Reading a constant number is fine: the guard never fails.
        return x * 2 if self.steps >= 0 else x

    def on_train_step_end(self):
        # Called by the training loop, not from forward: never traced.
        self.steps += 1


class GuardedCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        if not torch.compiler.is_compiling():
            self.calls += 1  # eager-only bookkeeping
        return x + 1


class DisabledCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    @torch.compiler.disable
    def _bump(self):
        # Deliberately outside the graph (one intended break, no recompiles).
        self.calls += 1

    def forward(self, x):
        self._bump()  # noqa: BR006 (deliberate)
        return x - 1


class TensorAccumulator(nn.Module):
    def __init__(self):
        super().__init__()
        self.total = torch.zeros(4)

    def forward(self, x):
        # Not a Python number: a tensor attribute rebound from itself.
        self.total = self.total + x.detach().sum(0)
        return x


class AnnealedSoftmax(nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = 1.0

    def forward(self, x):
        # A float: torch 2.11 makes it dynamic after one recompile (2 graphs, measured), so it is
        # not flagged.
        self.temperature = self.temperature * 0.99
        return torch.softmax(x / self.temperature, dim=-1)


def cases():
    """Region code for the proofs: name -> (module, example args)."""
    return {
        "buffer_counter": (BufferCounter(), (torch.randn(2, 4),)),
        "eager_step_counter": (EagerStepCounter(), (torch.randn(2, 4),)),
        "guarded_counter": (GuardedCounter(), (torch.randn(2, 4),)),
        "disabled_counter": (DisabledCounter(), (torch.randn(2, 4),)),
        "tensor_accumulator": (TensorAccumulator(), (torch.randn(2, 4),)),
        "annealed_float": (AnnealedSoftmax(), (torch.randn(2, 4),)),
    }
