# A parameter the body alone cannot type is a tensor where a call passes one: Dynamo traces the
# test of it as a data-dependent jump (graph break). A Python value passed instead is a constant
# Dynamo specializes on: no break.
import torch
import torch._dynamo


def select(x, check):
    if check:  # BR001: the compiled call below passes a tensor for `check`
        return x + 1
    return x - 1


opt_select = torch.compile(select, backend="eager")
opt_select(torch.randn(4), torch.ones(1, dtype=torch.bool))


def choose(x, use_bias):
    if use_bias:  # no finding: the only call passes a Python bool
        return x + 1
    return x


opt_choose = torch.compile(choose, backend="eager")
opt_choose(torch.randn(4), True)


def gate(x, keep):
    if keep:  # BR001: `keep` receives route's `mask`, a tensor at the compiled call of route
        return x
    return -x


def route(x, mask):
    return gate(x, mask)


opt_route = torch._dynamo.optimize("eager")(route)
on = torch.Tensor([True])
off = torch.Tensor([False])
for m in (on, off):
    opt_route(torch.randn(4), m)


@torch.compile(backend="eager")
def scaled(x, *, factor):
    if factor > 1:  # BR001: passed a tensor by keyword
        return x * factor
    return x


def run_scaled():
    scale = torch.full((1,), 2.0)
    return scaled(torch.randn(4), factor=scale)


run_scaled()


def pad(x, fill):
    if isinstance(fill, list) and fill:  # no finding: `fill` is a list where its truth is read
        return x
    return x + fill


opt_pad = torch.compile(pad, backend="eager")
opt_pad(torch.randn(4), torch.zeros(4))
