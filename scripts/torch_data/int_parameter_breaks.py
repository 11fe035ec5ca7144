"""What Dynamo does when an int parameter of a torch op receives a data-dependent 0-d tensor, measured.

Used by `gen_int_parameters` (not a generator itself: no `gen_` prefix). For one spelling and one
of its int parameters, a call is built from an overload of the op that has the parameter (the
other required arguments from the schema as `gen_op_tags` builds them: tensors over a few ranks
and dtypes, ints 1, int lists `[2, 2]`), with a small int there (`1`, `2`, `0`; an int list gets
`[2, 2]`, `[2]`, `[1]`) until the call runs eagerly. Then it is compiled twice (backend "eager",
fullgraph=False, graph breaks counted), inside a function that first computes `n = (m > 0).sum()`
from an input `m` of that many ones (a 0-d tensor whose value depends on tensor data, like
`mask.sum()` in model code):

- with the Python int in the parameter: it must compile whole, or nothing is claimed;
- with `n` in the parameter (for an int list, `n` as its first element): the break Dynamo counts.

The result is the GB code of the first counted break (torch >= 2.8, read from the installed
torch's graph_break_registry.json by the break's type), `breaks` on a torch without a registry,
`none` when the tensor call compiled whole, `unmeasured` when no call could be built, the
Python-int call broke too, or a call failed otherwise (nothing is claimed).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import pathlib
import sys

from torch_data import gen_op_tags

INT_VALUES = (1, 2, 0)
LIST_VALUES = ([2, 2], [2], [1])
# Inputs tried per spelling and parameter at most: a schema with several tensors has many
# rank x dtype combinations, and the first few that run are as good as any.
MAX_ATTEMPTS = 200


def _is_list(argument) -> bool:
    return "List[" in str(argument.real_type)


def _registry() -> dict[str, str] | None:
    """Graph-break type -> GB code of the installed torch, None without a registry."""
    import torch._dynamo

    path = pathlib.Path(torch._dynamo.__file__).parent / "graph_break_registry.json"
    if not path.exists():
        return None
    by_type: dict[str, str] = {}
    for code, forms in json.loads(path.read_text()).items():
        for form in forms:
            by_type.setdefault(form["Gb_type"], code)
    return by_type


def _code(reason: str, by_type: dict[str, str] | None) -> str:
    if by_type is None:
        return "breaks"
    first = reason.strip().splitlines()[0].strip()
    if first in by_type:
        return by_type[first]
    return next((c for t, c in by_type.items() if first.startswith(t)), "breaks")


def _calls(schema, method: bool, param: str):
    """`(positional, keyword name or None, values)`: argument templates for the schema's required
    arguments with `param` filled by each of `values`; None where a required argument has no
    generic value."""
    arguments = list(schema.arguments)
    if any(a.kwarg_only and not a.has_default_value() and a.name != param for a in arguments):
        return None
    target = next(a for a in arguments if a.name == param)
    values = LIST_VALUES if _is_list(target) else INT_VALUES
    required = [a for a in arguments if not a.has_default_value() and not a.kwarg_only]
    keyword = None if target in required else param
    choices = []
    for argument in required:
        if argument is target:
            choices.append([("param",)])
            continue
        kind = str(argument.type)
        if kind == "Tensor":
            choices.append([("t", r, d) for r in gen_op_tags.RANKS for d in gen_op_tags.DTYPES])
        else:
            value = gen_op_tags._scalar(kind)
            if value is None:
                return None
            choices.append([("v", value)])
    if method and (not required or str(required[0].type) != "Tensor"):
        return None
    return choices, keyword, values


def _fill(template, value):
    """The call's positional list and keywords, `value` in the parameter's place."""
    positional = []
    for choice in template:
        if choice[0] == "param":
            positional.append(value)
        elif choice[0] == "t":
            positional.append(gen_op_tags._tensor(choice[1], choice[2]))
        else:
            positional.append(choice[1])
    return positional


def _with_tensor(value, count):
    """The parameter's value with the data-dependent count in the int's place."""
    if isinstance(value, list):
        return [count] + value[1:]
    return count


def _broken(call, positional, keyword, value, as_tensor: bool):
    """Compile the call with the int (or the data-dependent count) in the parameter: the graph
    breaks Dynamo counted."""
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    int_value = value[0] if isinstance(value, list) else value
    slot = next((i for i, p in enumerate(positional) if p is _SLOT), None)
    inputs = [p for p in positional if p is not _SLOT]

    def traced(marks, *values):
        # Cloned first: real code reads a traced intermediate, and a frame that breaks before it
        # traced anything is skipped with no break counted (see gen_op_tags._breaks).
        values = [v.clone() if isinstance(v, torch.Tensor) else v for v in values]
        count = (marks > 0).sum()
        given = _with_tensor(value, count) if as_tensor else value
        if slot is not None:
            values.insert(slot, given)
        return call(values, {} if keyword is None else {keyword: given})

    torch._dynamo.reset()
    counters.clear()
    with contextlib.redirect_stdout(sys.stderr):
        torch.compile(traced, backend="eager", fullgraph=False)(torch.ones(int_value), *inputs)
    return list(counters["graph_break"])


class _Slot:
    """Where the parameter's value goes among the positional arguments."""


_SLOT = _Slot()


def measure(spelling: str, schemas: list, param: str, by_type) -> str:
    """The GB code, `breaks`, `none` or `unmeasured` for `param` of `spelling` (see the module)."""
    import torch

    method = spelling.startswith("Tensor.")
    try:
        call = gen_op_tags._caller(spelling)
    except Exception:  # noqa: BLE001 - no callable spelling: nothing measured
        return "unmeasured"
    for schema in schemas:
        if not any(a.name == param for a in schema.arguments):
            continue
        if method and (not schema.arguments or schema.arguments[0].name != "self"):
            continue
        built = _calls(schema, method, param)
        if built is None:
            continue
        choices, keyword, values = built
        attempts = 0
        for template in itertools.product(*choices):
            for value in values:
                attempts += 1
                if attempts > MAX_ATTEMPTS:
                    break
                positional = _fill(template, _SLOT)
                eager = [value if p is _SLOT else p for p in positional]
                kwargs = {} if keyword is None else {keyword: value}
                if not gen_op_tags._runs(call, eager, kwargs):
                    continue
                int_value = value[0] if isinstance(value, list) else value
                eager_tensor = _with_tensor(value, (torch.ones(int_value) > 0).sum())
                tensor_args = [eager_tensor if p is _SLOT else p for p in positional]
                tensor_kwargs = {} if keyword is None else {keyword: eager_tensor}
                if not gen_op_tags._runs(call, tensor_args, tensor_kwargs):
                    # Eager refuses a tensor here: the code would fail, not break.
                    return "unmeasured"
                try:
                    if _broken(call, positional, keyword, value, as_tensor=False):
                        return "unmeasured"
                    reasons = _broken(call, positional, keyword, value, as_tensor=True)
                except Exception:  # noqa: BLE001 - Dynamo failed otherwise: no measured break
                    return "unmeasured"
                return _code(reasons[0], by_type) if reasons else "none"
            if attempts > MAX_ATTEMPTS:
                break
    return "unmeasured"


def measure_all(entries: dict[str, dict], schemas_of: dict[str, list]) -> None:
    """Add `breaks` (one result per parameter, in `params` order) to every entry."""
    import logging
    import warnings

    by_type = _registry()
    logging.disable(logging.CRITICAL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for spelling, fields in entries.items():
            fields["breaks"] = [
                measure(spelling, schemas_of.get(spelling, []), param, by_type)
                for param in fields["params"]
            ]
    logging.disable(logging.NOTSET)
