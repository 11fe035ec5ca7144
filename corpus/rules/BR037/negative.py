"""BR037 negatives: near misses of a builtin Dynamo has no handler for.

Why: measured on torch 2.11 (backend="eager", fullgraph=True), each compiles whole: a name that
shadows the builtin (a parameter, a local `def`, an import) is not the builtin; `eval` in
`__init__` runs eagerly; builtins Dynamo handles (`id`, `len`, `getattr`, `sorted` of ints, `vars`
of an object, `format`) trace; `print` is BR004's. `model.eval()` is a method, not the builtin.
"""

import torch
from torch import nn
from torch.nn.functional import relu as hex  # noqa: A004 - shadows the builtin on purpose


class InitEval(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = eval("torch.relu")  # eagerly, before compiling

    def forward(self, x):
        return self.act(x)


@torch.compile(backend="eager")
def shadowed_by_parameter(x, eval=None):
    return x + 1 if eval is None else eval(x)


@torch.compile(backend="eager")
def shadowed_by_def(x):
    def compile(t):
        return t * 2

    return compile(x)


@torch.compile(backend="eager")
def shadowed_by_import(x):
    return hex(x)


@torch.compile(backend="eager")
def handled_builtins(x):
    n = len([1, 2]) + sorted([3, 1])[0]
    return getattr(x, "shape")[0] + n + x + len(format(3, "d"))


class Holder:
    def __init__(self):
        self.scale = 2


@torch.compile(backend="eager")
def vars_of_object(x):
    return x * vars(Holder())["scale"]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        self.lin.eval()
        return self.lin(x)


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4)
    return {
        "init_eval": (InitEval(), (x,)),
        "parameter": (shadowed_by_parameter.__wrapped__, (x,)),
        "def": (shadowed_by_def.__wrapped__, (x,)),
        "import": (shadowed_by_import.__wrapped__, (x,)),
        "handled": (handled_builtins.__wrapped__, (x,)),
        "vars_of_object": (vars_of_object.__wrapped__, (x,)),
        "method_eval": (Net(), (x,)),
    }
