"""BR006 positives: deliberate graph breaks in compiled regions.

Why: measured on torch 2.11 (backend="eager"): explicit graph_break() GB0025 (also in a callee),
calls into compiler.disable'd functions GB0098, into disabled methods GB0099. Deliberate, but each still splits the graph.
"""

import torch
from torch import nn

from torch._dynamo.comptime import comptime
from torch._dynamo.decorators import skip

from .helpers import match_targets


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, gt):
        pred = self.proj(x)
        idx = match_targets(pred, gt)  # expect: BR006
        return pred, idx


@torch._dynamo.disable
def eager_stats(x: torch.Tensor) -> float:
    return float(x.std())


class Stats(nn.Module):
    def forward(self, x):
        s = eager_stats(x)  # expect: BR006
        return x / s


def split_here(x: torch.Tensor) -> torch.Tensor:
    torch._dynamo.graph_break()  # expect: BR006
    return x


class CachedNorm(nn.Module):
    @torch.compiler.disable
    def stats(self, x):
        return x.mean(), x.std()

    def forward(self, x):
        mean, std = self.stats(x)  # expect: BR006
        return (x - mean) / std


@torch.compile
def two_graphs(x: torch.Tensor) -> torch.Tensor:
    y = x.sin()
    return split_here(y).cos()


# A torch.cond branch (and a torch.ops.higher_order.wrap body) is traced as the body of a
# higher-order op: a break inside it is reported at its own line, and the whole op fails to
# capture (UncapturedHigherOrderOpError), not just split (measured on torch 2.2 to 2.11).
def positive_branch(x):
    torch._dynamo.graph_break()  # expect: BR006
    return x.sin()


def negative_branch(x):
    return x.cos()


@torch.compile
def branch_on_sign(x):
    return torch.cond(x.sum() > 0, positive_branch, negative_branch, (x,))


def wrapped_body(x):
    torch._dynamo.graph_break()  # expect: BR006
    return x.sin()


@torch.compile
def wrapped(x):
    return torch.ops.higher_order.wrap(wrapped_body, x)


# torch >= 2.11: an explicit step-over break (GB4636).
@torch.compile
def stepped(x):
    x = x + 1
    x = x + 2
    torch._dynamo.step_unsupported()  # expect: BR006
    return x + 4


# comptime's explicit break (torch._dynamo.comptime, every supported torch): "ComptimeContext graph break".
@torch.compile
def comptime_break(x):
    x = x + 1
    comptime.graph_break()  # expect: BR006
    return x + 2


# A `@comptime` function runs while Dynamo traces, given the tracer's context as its first
# parameter (whatever its name): its `graph_break()` splits the graph at the decorator's line
# (GB0030 "ComptimeContext graph break", torch 2.2 to 2.11).
@torch.compile
def comptime_decorated_break(x):
    x = x + 1

    @comptime  # expect: BR006
    def _(tracer):
        tracer.graph_break()

    return x + 2


# Python syntax that calls a method of the operand's class: `obj.attr = v` runs
# `type(obj).__setattr__`, `obj[k]` runs `__getitem__`, `a != b` runs `__ne__` (object's default
# inverts `__eq__`). Dynamo inlines these like calls; a break inside is reported at its own line.
class Recorder:
    def __setattr__(self, name, value):
        torch._dynamo.graph_break()  # expect: BR006
        object.__setattr__(self, name, value)


class Table:
    def __getitem__(self, key):
        torch._dynamo.graph_break()  # expect: BR006
        return key


class Tag:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        torch._dynamo.graph_break()  # expect: BR006
        return self.name == other.name


@torch.compile
def records(x):
    Recorder().last = x
    return x + 1


@torch.compile
def looks_up(x):
    table = Table()
    return x + table[1]


@torch.compile
def compares(x):
    a = Tag("a")
    b = Tag("b")
    return x + 1, a != b



def traced_callee(x):
    return x.sin()


@torch._dynamo.disable(recursive=False)
def own_frame_eager(x):
    # recursive=False: Dynamo skips this frame only (traced_callee is still compiled), but the
    # call into it is a break all the same (torch 2.11: GB0099; 2.2/2.5: "call
    # torch._dynamo.disable() wrapped function").
    return traced_callee(x.cos())


@torch.compile
def calls_frame_only(x):
    return own_frame_eager(x.tan())  # expect: BR006


# Dynamo's other markers (rules/data/dynamo_markers.toml, measured per torch version): a function
# marked by `skip`, a function marked after its `def`, an nn.Module class marked as a whole (by
# class decorator or by a call on the class, which patches it in place), and a module instance
# wrapped at assignment. Each call below is a break (torch 2.11: GB0099, GB0098, GB0099, GB0099,
# GB0148).
@skip
def skipped_step(x):
    return x + 1


def marked_later(x):
    return x * 2


marked_later = torch.compiler.disable(marked_later)


@torch._dynamo.disable
class EagerScale(nn.Module):
    def forward(self, x):
        return x * 2


class EagerShift(nn.Module):
    def forward(self, x):
        return x + 3


torch.compiler.disable(EagerShift)


class MarkedParts(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = EagerScale()
        self.shift = EagerShift()
        self.proj = torch.compiler.disable(nn.Linear(4, 4))

    def forward(self, x):
        x = skipped_step(x)  # expect: BR006
        x = marked_later(x)  # expect: BR006
        return x


class MarkedClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = EagerScale()

    def forward(self, x):
        return self.scale(x) + 1  # expect: BR006


class MarkedInPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.shift = EagerShift()

    def forward(self, x):
        return self.shift(x) + 1  # expect: BR006


class MarkedInstance(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.compiler.disable(nn.Linear(4, 4))

    def forward(self, x):
        return self.proj(x) + 1  # expect: BR006


@torch.compiler.disable
def doubled_output(module, args, output):
    return output * 2


class HookedBlock(nn.Module):
    # A disabled function registered as a forward hook: calling the module runs the hook, which
    # Dynamo skips (torch 2.11: GB0098 at the module call).
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.proj.register_forward_hook(doubled_output)

    def forward(self, x):
        return self.proj(x) + 1  # expect: BR006


class SelfHookedLayer(nn.Module):
    # A module class that registers a disabled function as its own forward hook: every call of
    # one of its instances runs the hook (torch 2.11: GB0098 at the call in the parent).
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_forward_hook(doubled_output)

    def forward(self, x):
        return self.proj(x)


class HoldsSelfHooked(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = SelfHookedLayer()

    def forward(self, x):
        return self.layer(x) + 1  # expect: BR006

def cases():
    """name -> (callable, args, expected GB codes)."""
    x = torch.randn(3, 4)
    return {
        "disabled_callee_other_module": (Head(), (x, torch.randn(3, 4)), {"GB0098"}),
        "dynamo_disable_callee": (Stats(), (x,), {"GB0098"}),
        "graph_break_in_callee": (two_graphs, (x,), {"GB0025"}),
        # A disabled method is skipped while inlining the bound call: GB0099, not GB0098.
        "disabled_method": (CachedNorm(), (x,), {"GB0099"}),
        "setattr_dunder": (records, (x,), {"GB0025"}),
        "getitem_dunder": (looks_up, (x,), {"GB0025"}),
        "ne_falls_back_to_eq": (compares, (x,), {"GB0025"}),
        "frame_only_disable": (calls_frame_only, (x,), {"GB0099"}),
        "skip_and_late_disable": (MarkedParts(), (x,), {"GB0099", "GB0098"}),
        "class_decorator_disable": (MarkedClass(), (x,), {"GB0099"}),
        "class_disabled_in_place": (MarkedInPlace(), (x,), {"GB0099"}),
        "instance_disable": (MarkedInstance(), (x,), {"GB0148"}),
        "disabled_forward_hook": (HookedBlock(), (x,), {"GB0098"}),
        "self_registered_disabled_hook": (HoldsSelfHooked(), (x,), {"GB0098"}),
        "comptime_decorated_break": (comptime_decorated_break, (x,), {"GB0030"}),
    }
