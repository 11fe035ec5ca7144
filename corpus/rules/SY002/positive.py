"""SY002 positives: device->host reads inside compiled regions.

Why: `.item()`, `.tolist()`, `int()/float()/bool()` of a tensor need the value on the host: a
host sync, and under Dynamo a graph break (torch 2.11: GB0124 "Unsupported Tensor.item() call with
capture_scalar_outputs=False"; `.tolist()` of an integer tensor: "Data dependent operator").
`.cpu()` / `.numpy()` / `torch.cuda.synchronize()` sync the device; `.cpu()` traces without a
graph break on 2.11, it is a stall, not a break.
"""

import numpy as np
import torch
import torch as T
from torch import nn

from . import helpers
from .helpers import count_valid, top_score


class ScoreGate(nn.Module):
    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        # Both helpers live in helpers.py; their lines carry the markers.
        best = top_score(scores)
        n = count_valid(scores > 0)
        return scores / best + n


class TopK(nn.Module):
    def forward(self, scores):
        # Module alias `helpers.`; the `.tolist()` line is in helpers.py.
        keep = helpers.top_indices(scores, 3)
        # The `.tolist()` list then indexes the device tensor: a host->device copy, a second sync.
        return scores[keep]  # expect: SY003


class HostCopy(nn.Module):
    def forward(self, scores):
        # `.cpu()` on a forward parameter: a blocking device->host copy (no graph break).
        host = scores.cpu()  # expect: SY002
        return host * 2


@torch.compile
def normalized(x: torch.Tensor) -> torch.Tensor:
    return x / float(x.abs().max())  # expect: SY002


@torch.compile
def gate_flag(x: torch.Tensor):
    flag = bool((x > 0).all())  # expect: SY002
    return x * 2, flag


class ExportScores(nn.Module):
    def forward(self, scores):
        # `.numpy()` needs a host copy (not run by the proofs: numpy may be absent).
        return scores.detach().numpy()  # expect: SY002


class TimedBlock(nn.Module):
    def forward(self, x):
        y = x * 2
        T.cuda.synchronize()  # expect: SY002
        return y


def _integer_counts(x):
    # Called from a recursive=False-disabled frame: Dynamo skips that frame but traces this one.
    return (x * 10).long().tolist()  # expect: SY002


@torch._dynamo.disable(recursive=False)
def counts_frame(x):
    return _integer_counts(x)


class FrameOnlyDisabled(nn.Module):
    def forward(self, x):
        return counts_frame(x * 2)  # noqa: BR006 (deliberate)


class LayerDrop(nn.Module):
    """`.item()` of a tensor built on the host: the graph still breaks (torch 2.11: "Unsupported
    Tensor.item() call"), but the message says there is no device sync."""

    def forward(self, x):
        keep = torch.rand(1).item()  # expect: SY002
        return x * keep


class RopeGrid(nn.Module):
    """A meshgrid of host ranges is on the host too: the read breaks, no sync is claimed."""

    def forward(self, x):
        grid = torch.stack(torch.meshgrid(*[torch.arange(s) for s in x.shape[:2]], indexing="ij"))
        return x + grid.view(-1).max().item()  # expect: SY002


class SpecAugmentMask(nn.Module):
    """numpy inside a compiled forward: Dynamo traces numpy as CPU tensors, so `.item()` of a numpy
    value still breaks (torch 2.11: "Data dependent operator"); no device is involved."""

    def forward(self, x):
        epsilon = np.random.rand(1).item()  # expect: SY002
        # `.astype()` (a method torch.Tensor lacks) keeps a numpy value: still traced, still a break.
        steps = np.ceil(np.log(x.shape[-1] + 1)).astype("int").item()  # expect: SY002
        return x * epsilon + steps


def _base():
    return nn.Module


class HiddenModule(_base()):
    """Derives from a base graphbreak cannot resolve: found as compiled through `self.model`."""

    def forward(self, x):
        return x * x.max().item()  # expect: SY002


class Runner:
    def __init__(self):
        self.model = HiddenModule()
        self.step = torch.compile(self.model)


class InferScale(nn.Module):
    """torchvision's `_infer_scale` (ops/poolers.py): a tensor built inline from a Python float and
    read back by `float()`. Dynamo does not fold it (torch 2.11: "Unsupported Tensor.item() call",
    GB0124), whether the float is a constant or an argument; built on the host, so no sync."""

    def forward(self, features):
        approx_scale = float(features.shape[-1]) / 64.0
        scale = 2 ** float(torch.tensor(approx_scale).log2().round())  # expect: SY002
        return features * scale


class CopiedScalar(nn.Module):
    """`torch.as_tensor` of a tensor returns that tensor, on its device: a sync there, unlike the
    host-built one above."""

    def forward(self, x):
        return x * float(torch.as_tensor(x.sum()))  # expect: SY002


class JoinedScale(nn.Module):
    """A local that is a device reduction on one branch and host-built on the other: after the
    join it may be on the device, so the message keeps the sync (not the host claim the last
    assignment would give)."""

    def forward(self, x, learned: bool = True):
        if learned:
            scale = x.abs().amax()
        else:
            scale = torch.tensor(1.0)
        return x * scale.item()  # expect: SY002


class JoinedOffsetCopy(nn.Module):
    """Host-built on one branch only: the other path's device tensor makes `.cpu()` a copy."""

    def forward(self, x, fixed: bool = False):
        offset = x.mean(dim=0)
        if fixed:
            offset = torch.zeros(x.shape[-1])
        return x + offset.cpu()  # expect: SY002


class StreamingOffset(nn.Module):
    """A counter kept in a state dict slot: every store in the file is host-built
    (`torch.tensor(0)`) or adds a Python int in place, so the tensor lives on the host; its
    `.item()` still breaks the graph, but there is no device sync. The read comes before the
    stores in the file: the slot's place is known once the file is walked."""

    def __init__(self):
        super().__init__()
        self.state = {}

    def forward(self, x):
        y = x.relu()
        start = int(self.state["offset"].item()) if "offset" in self.state else 0  # expect: SY002
        self._advance(x.shape[0])
        return y + start

    def _advance(self, steps: int):
        if "offset" in self.state:
            self.state["offset"] += steps
        else:
            self.state["offset"] = torch.tensor(0)


def _advanced(module: StreamingOffset) -> StreamingOffset:
    """After a first step, the slot holds the counter the read sees."""
    module._advance(1)
    return module


class DeviceOffset(nn.Module):
    """The same slot, once stored from a device value: it may be on the device, so the read keeps
    the sync claim."""

    def __init__(self):
        super().__init__()
        self.state = {"offset": torch.tensor(0)}

    def forward(self, x):
        y = x.relu()
        start = self.state["offset"].item()  # expect: SY002
        self.state["offset"] = x.sum()
        return y + start


def steps_for(budget):
    # `budget` is a parameter: a tensor where a traced call passes one (below).
    return int(budget) + 1  # expect: SY002


@torch.compile
def repeat_by_budget(x):
    return x.repeat(steps_for(x.abs().sum().ceil()), 1)


def cases():
    """Entry points runnable on CPU: name -> (callable as written, example args)."""
    scores = torch.rand(6) + 0.1
    return {
        "int_in_comprehension_over_tensor": (SplitByLengths(), (torch.randn(5), torch.tensor([[1, 1, 0], [1, 1, 1]]))),
        "item_via_helper": (ScoreGate(), (scores,)),
        "tolist_via_module_alias": (TopK(), (scores,)),
        "cpu_copy": (HostCopy(), (scores,)),
        "float_of_tensor": (normalized, (scores,)),
        "bool_of_tensor": (gate_flag, (scores,)),
        "callee_of_frame_only_disable": (FrameOnlyDisabled(), (scores,)),
        "item_of_host_tensor": (LayerDrop(), (scores,)),
        "item_of_numpy_value": (SpecAugmentMask(), (scores,)),
        "item_of_host_meshgrid": (RopeGrid(), (torch.rand(3, 4),)),
        "compiled_through_self_attribute": (HiddenModule(), (scores,)),
        "float_of_inline_host_tensor": (InferScale(), (torch.rand(2, 16),)),
        "float_of_inline_device_tensor": (CopiedScalar(), (scores,)),
        "item_of_joined_scale": (JoinedScale(), (scores,)),
        "cpu_of_joined_offset": (JoinedOffsetCopy(), (torch.rand(3, 4),)),
        "item_of_host_state_slot": (_advanced(StreamingOffset()), (scores,)),
        "item_of_device_state_slot": (DeviceOffset(), (scores,)),
        "int_of_a_parameter_given_a_tensor": (repeat_by_budget, (torch.rand(2, 3),)),
    }


class PerClassCounts(nn.Module):
    """`.item()` in a loop body: Dynamo skips the whole frame at it (0 graphs), so the tensor
    branch after the loop is never traced — one finding, not two."""

    def forward(self, labels):
        counts = []
        for label in range(3):
            counts.append((labels == label).sum().item())  # expect: SY002
        if labels.sum() > 0:
            labels = labels + 1
        return labels * len(counts)


class SplitByLengths(nn.Module):
    """A comprehension over a tensor binds 0-d tensors: `int(n)` reads each one's value (a break
    in a comprehension resumes after it on Python 3.11)."""

    def forward(self, x, mask):
        lengths = mask.sum(-1)
        return torch.split(x, [int(n) for n in lengths])  # expect: SY002


class TileCounts(nn.Module):
    """Iterating a tensor yields tensors, and unpacking a row yields 0-d tensors: `int(h * w)`
    reads each one's value (inside the loop, so Dynamo skips the whole frame)."""

    def forward(self, x, sizes):
        grid = torch.abs(sizes)
        total = 0
        for h, w in grid:
            total = total + int(h * w)  # expect: SY002
        return x * total


class TileArea(nn.Module):
    """`sizes` is a parameter the body does not rebind, given a tensor by the traced call below:
    unpacking its rows yields 0-d tensors, and `int(h * w)` reads each one's value (inside the
    loop, so Dynamo skips the whole frame)."""

    def forward(self, x, sizes: torch.Tensor):
        total = 0
        for h, w in sizes:
            total = total + int(h * w)  # expect: SY002
        return x * total


class TiledEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.area = TileArea()

    def forward(self, x, sizes):
        return self.area(x * 2, torch.abs(sizes))


class InputTileArea(nn.Module):
    """A root's own input annotated as a tensor: its user passes one, and the loop over it binds
    0-d tensors (the frame is skipped at the read)."""

    def forward(self, x, sizes: torch.Tensor):
        total = 0
        for h, w in sizes:
            total = total + int(h * w)  # expect: SY002
        return x * total


def frame_skip_cases():
    """name -> (callable, args, whether Dynamo skips the whole frame)."""
    return {
        "item_in_loop_then_branch": (PerClassCounts(), (torch.arange(6) % 3,), True),
        "int_of_unpacked_tensor_rows": (TileCounts(), (torch.randn(3), torch.tensor([[1, 2], [2, 1]])), True),
        "int_of_rows_of_a_root_input_annotated_as_a_tensor": (
            InputTileArea(),
            (torch.randn(3), torch.tensor([[1, 2], [2, 1]])),
            True,
        ),
        "int_of_rows_of_a_parameter_given_a_tensor": (
            TileArea(),
            (torch.randn(3), torch.tensor([[1, 2], [2, 1]])),
            True,
        ),
    }
