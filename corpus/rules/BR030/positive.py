"""BR030 positives: a compiled function's parameter used in a way Dynamo cannot trace for the
value the call site in this file passes.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): a builtin iterator or dict view
arriving as an input cannot be iterated (2.11: GB0156), a constant is not a context manager
(GB0142), a disabled function is skipped (GB0098), a module whose `Module.__init__` never ran
cannot be called (GB0119), `sorted()` compares tensors (GB0207).
"""

import torch


def weighted_total(x, pairs):
    return [a * b for a, b in pairs], x.sin()  # expect: BR030


def first_entry(x, entries):
    walker = iter(entries)  # expect: BR030
    return next(walker), x + 1


def guarded(x, guard):
    with guard:  # expect: BR030
        return x + 1


class Scaler(torch.nn.Module):
    def __init__(self):
        pass

    def forward(self, x):
        return x * 2


def apply_module(x, module):
    return module(x)  # expect: BR030


@torch.compiler.disable
def eager_only(x):
    return x + 1


@torch.compile(backend="eager")
def apply_callable(fn, x):
    return fn(x)  # expect: BR030


def ordered(values):
    return sorted(values)  # expect: BR030


def cases():
    """name -> (callable, args, what Dynamo reports on torch 2.11)."""
    x = torch.randn(3)
    weights = [1.0, 2.0]
    table = {"a": 1, "b": 2}
    return {
        "zip_iterated": (weighted_total, (x, zip(weights, weights)), "Unsupported method call"),
        "items_iterated": (first_entry, (x, table.items()), "Unsupported method call"),
        "constant_in_with": (guarded, (x, 3), "Unsupported context manager"),
        "uninitialized_module": (apply_module, (x, Scaler()), "Uninitialized nn.Module"),
        "disabled_called": (apply_callable.__wrapped__, (eager_only, x), "torch.compiler.disable"),
        "tensors_sorted": (ordered, ([torch.tensor(3.0), torch.tensor(1.0)],), "sort with non-constant keys"),
    }


if __name__ == "__main__":
    x = torch.randn(3)
    weights = [1.0, 2.0]
    table = {"a": 1, "b": 2}
    scalars = [torch.tensor(3.0), torch.tensor(1.0)]

    torch.compile(weighted_total, backend="eager")(x, zip(weights, weights))
    compiled_first = torch.compile(first_entry, backend="eager")
    compiled_first(x, table.items())
    torch.compile(guarded, backend="eager")(x, 3)
    torch.compile(apply_module, backend="eager")(x, Scaler())
    apply_callable(eager_only, x)
    torch.compile(ordered, backend="eager")(scalars)
