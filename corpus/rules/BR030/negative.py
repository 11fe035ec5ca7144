"""BR030 negatives: the same uses with values Dynamo traces as inputs, and uses no call site
in the file decides.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): lists, tuples and tensors passed
in are traced; a module that ran `super().__init__()` is called inline; `sorted()` over Python
numbers is constant-folded. A generator built inside the compiled function is traced, and so is
`torch.autocast` passed in (measured: Dynamo accepts it as an input, torch 2.11). A generator
function under a decorator of unknown effect is not claimed: the decorator decides what a call
returns (here a list).
"""

import contextlib

import torch


def weighted_total(x, pairs):
    return [a * b for a, b in pairs], x.sin()


def first_entry(x, entries):
    walker = iter(entries)
    return next(walker), x + 1


def guarded(x, guard):
    with guard:
        return x + 1


class Scaler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.factor = 2

    def forward(self, x):
        return x * self.factor


def apply_module(x, module):
    return module(x)


def plain(x):
    return x + 1


@torch.compile(backend="eager")
def apply_callable(fn, x):
    return fn(x)


def ordered(values):
    return sorted(values)


def never_called(x, pairs):
    # No call site in the file: what it receives is unknown.
    return [a * b for a, b in pairs], x


def countdown():
    yield 3
    yield 2


def take_first_own(x):
    numbers = countdown()
    return x + next(numbers)


def with_autocast(x, ctx):
    with ctx:
        return x * 2


def listed(fn):
    def wrapper():
        return list(fn())

    return wrapper


@listed
def steps():  # a generator function, but the decorator makes calling it return a list
    yield 1
    yield 2


def advance_all(x, values):
    for v in values:
        x = x + v
    return x


def cases():
    """name -> (callable, args)."""
    x = torch.randn(3)
    weights = [1.0, 2.0]
    table = {"a": 1, "b": 2}
    return {
        "list_iterated": (weighted_total, (x, list(zip(weights, weights)))),
        "list_of_items_iterated": (first_entry, (x, list(table.items()))),
        "null_context_in_with": (guarded, (x, contextlib.nullcontext())),
        "initialized_module": (apply_module, (x, Scaler())),
        "plain_called": (apply_callable.__wrapped__, (plain, x)),
        "numbers_sorted": (ordered, ([3, 1, 2],)),
        "generator_built_inside": (take_first_own, (x,)),
        "autocast_entered": (with_autocast, (x, torch.autocast("cpu"))),
        "decorated_generator_iterated": (advance_all, (x, steps())),
    }


if __name__ == "__main__":
    x = torch.randn(3)
    weights = [1.0, 2.0]
    table = {"a": 1, "b": 2}

    torch.compile(weighted_total, backend="eager")(x, list(zip(weights, weights)))
    compiled_first = torch.compile(first_entry, backend="eager")
    compiled_first(x, list(table.items()))
    torch.compile(guarded, backend="eager")(x, contextlib.nullcontext())
    torch.compile(apply_module, backend="eager")(x, Scaler())
    apply_callable(plain, x)
    torch.compile(ordered, backend="eager")([3, 1, 2])
    torch.compile(never_called, backend="eager")
    torch.compile(take_first_own, backend="eager")(x)
    torch.compile(with_autocast, backend="eager")(x, torch.autocast("cpu"))
    torch.compile(advance_all, backend="eager")(x, steps())
