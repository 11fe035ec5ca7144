"""SY002 negatives: int() of plain ints and shapes, reads outside any compiled region (training
loop, logging via helpers.py), and reads that only run eagerly. Nothing here may be reported;
the region code compiles with 0 graph breaks."""

import math

import torch
from torch import nn

from .helpers import loss_for_logging

try:
    # Hugging Face's wrapper of torch.compiler.is_compiling(), recognised by name.
    from transformers.utils import is_torchdynamo_compiling
except ImportError:  # transformers is not installed for the proofs

    def is_torchdynamo_compiling():
        return torch.compiler.is_compiling()


class SliceHead(nn.Module):
    def forward(self, x: torch.Tensor, k: int = 2) -> torch.Tensor:
        # int() of a plain int parameter and of shapes: no tensor involved.
        n = int(k)
        rows = int(x.shape[0])
        scale = float(x.numel())
        return x[:rows, :n] / scale


@torch.compiler.disable
def record_stats(stats, x):
    # Disabled function: never traced, so the .item() is an eager read outside the graph.
    stats.append(x.mean().item())


class LoggedBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.stats = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.compiler.is_compiling():
            # Eager-only diagnostics.
            self.stats.append(x.abs().max().tolist())
        y = torch.relu(x)
        if torch.compiler.is_compiling():
            return y
        # After `if is_compiling(): return`, eager only.
        self.stats.append(y.sum().cpu())
        return y


class StatsBlock(LoggedBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Calls the disabled function: a deliberate graph break, not a hazard in traced code.
        record_stats(self.stats, x)  # noqa: BR006 (deliberate)
        return x * 2


@torch._dynamo.disable(recursive=False)
def frame_only_mean(x):
    # recursive=False still skips this frame itself: the .item() runs eagerly.
    return x.mean().item()


class FrameOnlyStats(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * frame_only_mean(x)  # noqa: BR006 (deliberate)


class ShortCircuitReads(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The read is an operand after the guard: under Dynamo `and`/`or` never evaluate it.
        if not torch.compiler.is_compiling() and x.sum().item() > 0:
            print("positive input")
        checked = torch.compiler.is_compiling() or bool(x.max() > 1)
        return x * 2 if checked else x


class GuardShapes(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        compiling = torch.compiler.is_compiling()  # the guard kept in a local
        if not compiling:
            print(x.sum().item())
        y = x if torch.compiler.is_compiling() else x * x.max().item()  # ternary guard
        with torch.no_grad():
            if is_torchdynamo_compiling():
                return y  # an early return inside `with` leaves the function
        return y * x.min().item()


class HostOnlyCopies(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # `.cpu()` of a tensor built on the host copies nothing.
        offset = torch.tensor([1.0]).cpu()
        return x + offset


class HostOnEveryBranch(nn.Module):
    """Built on the host on both branches: after the join `.cpu()` still copies nothing."""

    def forward(self, x: torch.Tensor, ramp: bool = True) -> torch.Tensor:
        if ramp:
            offset = torch.arange(4.0)
        else:
            offset = torch.zeros(4)
        return x + offset.cpu()


class FailureOnlyReads(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[0] > 1000:
            raise ValueError(f"batch too large: {x.sum().item()}")
        if x.dim() != 2:
            bad = x.shape[0]
            detail = x.flatten().tolist()
            torch._assert(False, f"rank != 2 ({bad}, {detail})")
        return x * 2


class OutOfMemoryFallback(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        try:
            return x * 2
        except RuntimeError as error:
            if "out of memory" not in str(error):
                raise
        # Only after the exception: the chunked fallback reads sizes on the host.
        chunks = int(x.abs().max().item()) + 1
        return torch.cat([c * 2 for c in x.chunk(chunks)])


class DictMeansTraining(nn.Module):
    """ultralytics' convention: a dict input means "compute the loss" (eager, in the trainer); a
    compiled forward gets a tensor, so the loss helpers are never traced."""

    def forward(self, x, *args):
        if isinstance(x, dict):
            return self.loss(x)
        if not torch.compiler.is_compiling():
            self.log_stats(x)  # an eager-only call: its callee is not compiled either
        return x * 2

    def loss(self, batch):
        return batch["img"].sum().item()

    def log_stats(self, x):
        print(x.max().item())


class InferScaleOnTheHost(nn.Module):
    """The fix for `float(torch.tensor(scale).log2().round())`: the same math on the Python float
    (`math.log2`, builtin `round`) is folded by Dynamo, no tensor is built or read."""

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        approx_scale = float(features.shape[-1]) / 64.0
        scale = 2 ** float(round(math.log2(approx_scale)))
        return features * scale


def train_step(model, x, y, optimizer, history):
    # Training loop: host reads for logging are fine here.
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    history.append(loss_for_logging(loss))
    history.append(int(loss.detach() > 1.0))


class ShadowedInComprehension(nn.Module):
    """The comprehension's `n` is an int from `range`: it shadows the function's tensor `n` only
    inside the comprehension (its own scope), so `bool(n)` reads no tensor."""

    def forward(self, x):
        n = x.sum()
        flags = [bool(n) for n in range(3)]
        return x * n, flags


def level_areas(x, shapes: torch.Tensor):
    total = 0
    for h, w in shapes:
        total = total + int(h * w)
    return x * total


class LevelSizes(nn.Module):
    """`level_areas` annotates `shapes` as a tensor, but its only traced call gives a list of
    `(h, w)` tuples: a loop over a parameter binds tensors only where a traced call passes a
    tensor for it (here none does), so `int(h * w)` is no tensor read."""

    def __init__(self):
        super().__init__()
        self.shapes = [(2, 3), (1, 1)]

    def forward(self, x):
        return level_areas(x, self.shapes)


def steps_for(count):
    # `count` is a parameter its only traced caller gives an int: no tensor read.
    return int(count) + 1


@torch.compile
def repeat_twice(x):
    return x.repeat(steps_for(1), 1)


def cases():
    """Region code for the proofs: name -> (module, example args)."""
    return {
        "comprehension_name_shadowing_a_tensor": (ShadowedInComprehension(), (torch.randn(4, 4),)),
        "loop_over_an_annotated_parameter_given_tuples": (LevelSizes(), (torch.randn(4, 4),)),
        "int_of_plain_int_and_shapes": (SliceHead(), (torch.randn(4, 4),)),
        "eager_only_reads": (LoggedBlock(), (torch.randn(4, 4),)),
        "disabled_helper": (StatsBlock(), (torch.randn(4, 4),)),
        "guard_shapes": (GuardShapes(), (torch.randn(4, 4),)),
        "short_circuit_reads": (ShortCircuitReads(), (torch.randn(4, 4),)),
        "frame_only_disable": (FrameOnlyStats(), (torch.randn(4, 4),)),
        "host_only_copies": (HostOnlyCopies(), (torch.randn(4, 4),)),
        "host_on_every_branch": (HostOnEveryBranch(), (torch.randn(4, 4),)),
        "failure_only_reads": (FailureOnlyReads(), (torch.randn(4, 4),)),
        "out_of_memory_fallback": (OutOfMemoryFallback(), (torch.randn(4, 4),)),
        "dict_means_training": (DictMeansTraining(), (torch.randn(4, 4),)),
        "scale_math_on_the_host": (InferScaleOnTheHost(), (torch.randn(2, 16),)),
        "int_of_a_parameter_given_an_int": (repeat_twice, (torch.randn(2, 3),)),
    }
