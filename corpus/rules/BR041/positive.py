"""BR041 positives: a `with` over a context manager built outside the frame Dynamo traces.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): a module whose `forward` enters
an instance stored on `self`, or a module-level instance, compiles 0 graphs (GB0142 "Unsupported
context manager" on 2.8 and 2.11, "BEFORE_WITH UserDefinedObjectVariable" on 2.5; the frame runs
eagerly), for a class of the file with `__enter__`, a subclass of one, `torch.no_grad()` and a
standard-library lock. A
local of a class of the file built before a graph break and entered after it stops the resumed
frame at the `with` (torch 2.5, 2.8, 2.11).
"""

import threading

import torch
from torch import nn


class Recorder:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class NamedRecorder(Recorder):
    pass


RECORDER = Recorder()
STATE_LOCK = threading.Lock()


class Timed(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.timer = Recorder()

    def forward(self, x):
        with self.timer:  # expect: BR041
            return self.proj(x)


class InheritedTimed(nn.Module):
    def __init__(self):
        super().__init__()
        self.timer = NamedRecorder()

    def forward(self, x):
        y = x * 2
        with self.timer:  # expect: BR041
            return y + 1


class Frozen(nn.Module):
    def __init__(self):
        super().__init__()
        self.frozen = torch.no_grad()

    def forward(self, x):
        with self.frozen:  # expect: BR041
            return x * 3


class Global(nn.Module):
    def forward(self, x):
        with RECORDER:  # expect: BR041
            return x - 1


class Locked(nn.Module):
    def __init__(self):
        super().__init__()
        self.guard = threading.RLock()

    def forward(self, x):
        with STATE_LOCK:  # expect: BR041
            x = x + 1
        with self.guard:
            return x * 2


class Crossing(nn.Module):
    def forward(self, x):
        recorder = Recorder()
        x = x + 1
        print("resuming")  # expect: BR004
        with recorder:  # expect: BR041
            x = x * 2
        return x


# Contrasts: no BR041 here (the graph break is BR004's; the torch one crossing is CR003's).
class TorchCrossing(nn.Module):
    def forward(self, x):
        frozen = torch.no_grad()
        x = x + 1
        print("resuming")  # expect: BR004
        with frozen:  # expect: CR003
            x = x * 2
        return x


class BuiltAfterBreak(nn.Module):
    def forward(self, x):
        x = x + 1
        print("resuming")  # expect: BR004
        recorder = Recorder()
        with recorder:
            x = x * 2
        return x


def cases():
    """name -> (module, args, graphs it compiles: 0 when Dynamo gives up on the frame at once)."""
    x = torch.randn(4)
    return {
        "attribute": (Timed(), (x,), 0),
        "inherited_attribute": (InheritedTimed(), (x,), 0),
        "torch_attribute": (Frozen(), (x,), 0),
        "module_global": (Global(), (x,), 0),
        # The first `with` gives up on the frame: the second one is never traced (one cause).
        "stdlib_lock": (Locked(), (x,), 0),
        # The part before the break compiles; the resumed frame stops at the `with`.
        "crossing_break": (Crossing(), (x,), 1),
    }


def contrast_cases():
    """name -> (module, args, graphs it compiles): the break resumes and the `with` is entered."""
    x = torch.randn(4)
    return {
        # torch's own context managers cross a break (Dynamo carries them over).
        "torch_crossing": (TorchCrossing(), (x,), 2),
        # Built after the break: built in the frame that enters it.
        "built_after_break": (BuiltAfterBreak(), (x,), 2),
    }


if __name__ == "__main__":
    x = torch.randn(4)
    for module, args, _ in cases().values():
        torch.compile(module, backend="eager")(*args)
