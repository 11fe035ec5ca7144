"""Cases for the cross-check (scan findings vs what Dynamo did) that the hazard cases do not cover.

`# LINE: name` markers let tests find lines without hard-coding numbers.
"""

import torch
from torch import nn


class ProbesAnInstalledModule(nn.Module):
    """BR002 flags an import probe in forward: when the module is missing Dynamo breaks (GB0069) and runs the
    frame eagerly. numpy ships with torch here, so the import succeeds and Dynamo does not break: the
    finding claims a break that does not happen on this install (an unconfirmed finding)."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        try:
            import numpy  # noqa: F401  # LINE: probe
            scale = 2.0
        except ImportError:
            scale = 1.0
        return self.proj(x) * scale


def case_import_probe_installed():
    return {
        "model": ProbesAnInstalledModule(),
        "args": (torch.randn(4, 8),),
        "compile": {"backend": "eager"},
    }


def rescale(y):
    """Inlined into forward by Dynamo (its lines are traced at inline depth 1)."""
    peak = y.abs().amax()  # LINE: inlined
    return y / (peak + 1.0)


class InlinedHelperThenBreak(nn.Module):
    """The trace map holds the inlined helper's lines, the lines after the break (the resumed frame) and not
    the branch Python never took."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.debug = False

    def forward(self, x):
        y = rescale(self.proj(x))
        if self.debug:
            y = y * 0  # LINE: not_taken
        total = float(y.sum())  # LINE: break
        return y * total  # LINE: resumed


def case_inlined_helper_then_break():
    return {
        "model": InlinedHelperThenBreak(),
        "args": (torch.randn(4, 8),),
        "compile": {"backend": "eager"},
    }


class BreaksInsideALoop(nn.Module):
    """A tensor `if` inside a loop over a Python list (torchvision's degenerate-box check). torch 2.11 logs the
    break ("Failed to handle graph break gracefully"); torch 2.2 skips the whole frame and says so only in an
    INFO record. Either way the line is a runtime event."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, boxes_list):
        for boxes in boxes_list:
            degenerate = boxes[:, 2:] <= boxes[:, :2]
            if degenerate.any():  # LINE: loop_branch
                raise ValueError("degenerate box")
        return self.proj(x)


def case_break_inside_loop():
    boxes = torch.tensor([[10.0, 12.0, 70.0, 90.0]])
    return {
        "model": BreaksInsideALoop(),
        "args": (torch.randn(2, 4), [boxes, boxes + 1.0]),
        "compile": {"backend": "eager"},
    }


class SkipsMaskCheckUnderCompile(nn.Module):
    """transformers' `_ignore_bidirectional_mask_sdpa` (masking_utils.py, 5.x): the `if` header's lines are all
    traced, but under compile `padding_mask.all()` never runs — with a mask the first operand is already False
    (`is_exporting()` is True inside torch.compile from 2.9; missing before 2.7, the getattr default is False, and
    `is_compiling()` decides) and `and` stops there. Dynamo breaks only on the `.any()` branch below."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, padding_mask):
        exporting = getattr(torch.compiler, "is_exporting", lambda: False)
        if (
            not (exporting() or (padding_mask is not None and torch.compiler.is_compiling()))
            and (padding_mask is None or padding_mask.all())  # LINE: short_circuit
        ):
            x = x * 2
        if padding_mask.any():  # LINE: mask_branch
            x = x + 1
        return self.proj(x)


def case_short_circuited_mask_check():
    return {
        "model": SkipsMaskCheckUnderCompile(),
        "args": (torch.randn(4, 8), torch.ones(4, 8, dtype=torch.bool)),
        "compile": {"backend": "eager"},
    }
