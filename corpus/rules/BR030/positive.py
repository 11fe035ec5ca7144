"""BR030 positives: a compiled function's parameter used in a way Dynamo cannot trace for the
value the call site in this file passes.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): a builtin iterator or dict view
arriving as an input cannot be iterated (2.11: GB0156), a constant is not a context manager
(GB0142), a disabled function is skipped (GB0098), a module whose `Module.__init__` never ran
cannot be called (GB0119), `sorted()` compares tensors (GB0207). A generator passed in cannot be
advanced (GB0253), and a context manager built by the caller (`torch.no_grad()`, a class of the
file with `__enter__`, its own or inherited from a class of the file, a `@contextmanager`
function's result) cannot be entered (GB0142);
torch 2.11 (older torches: the proofs' notes).
"""

import contextlib
from contextlib import contextmanager

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


def countdown():
    yield 3
    yield 2


def take_first(x, numbers):
    return x + next(numbers)  # expect: BR030


def accumulate(x, numbers):
    for n in numbers:  # expect: BR030
        x = x + n
    return x


def without_grad(x, ctx):
    with ctx:  # expect: BR030
        return x * 2


class Bracket:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def bracketed(x, scope):
    with scope:  # expect: BR030
        return x - 1


class NamedBracket(Bracket):  # `__enter__` inherited from a class of the file
    pass


def named_bracketed(x, scope):
    with scope:  # expect: BR030
        return x + 2


@contextlib.contextmanager
def phase():  # calling it builds a context manager, not a generator
    yield


def phased(x, scope):
    with scope:  # expect: BR030
        return x * 3


@contextmanager
def stage():  # the decorator imported by name: the same `contextlib.contextmanager`
    yield


def staged(x, scope):
    with scope:  # expect: BR030
        return x - 1


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
        "generator_advanced": (take_first, (x, countdown()), "call_method on generator"),
        "generator_iterated": (accumulate, (x, (n for n in range(3))), "call_method on generator"),
        "no_grad_entered": (without_grad, (x, torch.no_grad()), "Unsupported context manager"),
        "own_context_entered": (bracketed, (x, Bracket()), "Unsupported context manager"),
        "inherited_context_entered": (named_bracketed, (x, NamedBracket()), "Unsupported context manager"),
        "contextmanager_entered": (phased, (x, phase()), "Unsupported context manager"),
        "imported_contextmanager_entered": (staged, (x, stage()), "Unsupported context manager"),
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
    torch.compile(take_first, backend="eager")(x, countdown())
    torch.compile(accumulate, backend="eager")(x, (n for n in range(3)))
    no_grad = torch.no_grad()
    compiled_without_grad = torch.compile(without_grad, backend="eager")
    compiled_without_grad(x, no_grad)
    torch.compile(bracketed, backend="eager")(x, Bracket())
    torch.compile(named_bracketed, backend="eager")(x, NamedBracket())
    torch.compile(phased, backend="eager")(x, phase())
    torch.compile(staged, backend="eager")(x, stage())
