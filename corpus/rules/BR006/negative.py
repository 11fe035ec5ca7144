"""BR006 negatives: disabled functions called only from eager code, and non-disabled decorators."""

import torch
from torch import nn
from torch._dynamo.comptime import comptime


@torch.compiler.disable
def log_stats(x: torch.Tensor) -> None:
    pass


def train_step(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    # Eager code (not compiled): calling a disabled function here costs nothing.
    log_stats(x)
    return model(x)


@torch.no_grad()
def normalize(x: torch.Tensor) -> torch.Tensor:
    return x / x.norm()


class Block(nn.Module):
    def forward(self, x):
        if not torch.compiler.is_compiling():
            log_stats(x)
        return normalize(x)


class Slots:
    """Attribute stores, subscripts and comparisons on a class without those dunders: no call."""

    def __init__(self):
        self.items = {}

    def helper(self):
        torch._dynamo.graph_break()


@torch.compile
def plain_syntax(x):
    s = Slots()
    s.extra = 1
    s.items["k"] = x
    return x + 1, s == s


@torch._dynamo.allow_in_graph
def kept_in_graph(x):
    # allow_in_graph puts the call in the graph as one node: no break (the markers table has
    # no function effect for it).
    return x * 2


@torch._dynamo.decorators.skip
def skipped_eagerly(x):
    return x + 1


class AllowedCall(nn.Module):
    def forward(self, x):
        return kept_in_graph(x) + 1


def eager_loop(x):
    # Eager code: calling a skipped function here costs nothing.
    return skipped_eagerly(x)


def scaled_output(module, args, output):
    return output * 2


class PlainHookedBlock(nn.Module):
    # An ordinary forward hook is traced with the module: no break.
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.proj.register_forward_hook(scaled_output)

    def forward(self, x):
        return self.proj(x) + 1


class PlainSelfHookedLayer(nn.Module):
    # An ordinary forward hook a class registers on itself is traced with each call: no break.
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_forward_hook(scaled_output)

    def forward(self, x):
        return self.proj(x)


class HoldsPlainSelfHooked(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = PlainSelfHookedLayer()

    def forward(self, x):
        return self.layer(x) + 1


@torch.compile
def comptime_inspects_only(x):
    # A `@comptime` body that only reads the tracer's state runs at trace time and adds nothing:
    # no break.
    y = x + 1

    @comptime
    def _(ctx):
        ctx.get_local("y")

    return y * 2


def cases():
    return {
        "comptime_without_break": (comptime_inspects_only, (torch.randn(3, 4),)),
        "plain_self_hook": (HoldsPlainSelfHooked(), (torch.randn(3, 4),)),
        "plain_forward_hook": (PlainHookedBlock(), (torch.randn(3, 4),)),
        "allow_in_graph_call": (AllowedCall(), (torch.randn(3, 4),)),
        "eager_only_disabled_call": (Block(), (torch.randn(3, 4),)),
        "syntax_without_dunders": (plain_syntax, (torch.randn(3, 4),)),
    }
