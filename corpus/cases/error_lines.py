"""Errors raised by user code while Dynamo traces it, deep in a forward after an earlier graph break, as in
a real detector. On torch 2.5 the traceback of such an error points at the `def` line of the frame (Dynamo
runs rewritten bytecode whose line table has only that line); `check` must still name the statement."""

import torch
from torch import nn


class DetectorHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, kernel_size=3, padding=1)
        self.proj = nn.Linear(4, 4)

    def forward(self, images):
        features = self.conv(images)
        scale = float(features.abs().max().item())  # LINE: early_break
        pooled = features.mean(dim=(2, 3)) / (scale + 1.0)
        hidden = self.proj(pooled)
        hidden = torch.relu(hidden)
        levels = [features, features[:, :, ::2, ::2]]
        shapes = torch.stack([torch._shape_as_tensor(level)[2:4] for level in levels])  # LINE: crash
        return hidden, shapes


def case_crash_after_break():
    torch.manual_seed(0)
    return {"model": DetectorHead(), "args": (torch.randn(2, 3, 16, 16),), "compile": {"backend": "eager"}}


class ClosureDetectorHead(DetectorHead):
    """The same crash in a frame with a closure (a local an inner function captures): Dynamo builds the
    resumed frame's function from a code object named after the break's line, not from a global."""

    def forward(self, images):
        features = self.conv(images)
        scale = float(features.abs().max().item())  # LINE: closure_early_break

        def rescale(tensor):
            return tensor / (scale + 1.0)

        hidden = torch.relu(self.proj(rescale(features.mean(dim=(2, 3)))))
        levels = [features, features[:, :, ::2, ::2]]
        shapes = torch.stack([torch._shape_as_tensor(level)[2:4] for level in levels])  # LINE: closure_crash
        return rescale(hidden), shapes


def case_crash_after_break_in_a_closure_frame():
    torch.manual_seed(0)
    return {"model": ClosureDetectorHead(), "args": (torch.randn(2, 3, 16, 16),), "compile": {"backend": "eager"}}


class GuardedDetectorHead(DetectorHead):
    """The crash behind a guard that tests only a tracing predicate (False under torch.compile): the
    fallback branch is traced and crashes; CR002 is on the guard, CR001 on the statement that raised."""

    def forward(self, images):
        features = self.conv(images)
        scale = float(features.abs().max().item())  # LINE: guarded_early_break
        hidden = torch.relu(self.proj(features.mean(dim=(2, 3)) / (scale + 1.0)))
        levels = [features, features[:, :, ::2, ::2]]
        if torch.jit.is_tracing():  # LINE: guard
            shapes = torch.stack([torch.full((2,), level.shape[2]) for level in levels])
        else:
            shapes = torch.stack([torch._shape_as_tensor(level)[2:4] for level in levels])  # LINE: guarded_crash
        return hidden, shapes


def case_crash_behind_a_tracing_guard():
    torch.manual_seed(0)
    return {"model": GuardedDetectorHead(), "args": (torch.randn(2, 3, 16, 16),), "compile": {"backend": "eager"}}
