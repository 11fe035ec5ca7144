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
