"""BR023 positives: str()/repr() of a tensor in traced code.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager"): Dynamo cannot build a traced
tensor's text; `str(t)` / `repr(t)` stop it (2.11: GB0059 "Failed to trace builtin operator"), and
`repr` of a torch named-tuple result too (2.11: GB9198, a C-implemented repr).
"""

import torch


@torch.compile
def message_of_difference(a, b):
    diff = torch.sub(a, b) * 10
    text = str(diff)  # expect: BR023
    return diff + 1, text


def described(x):
    y = torch.relu(x)
    return y, repr(y)  # expect: BR023


@torch.compile
def calls_described(x):
    return described(x)


@torch.compile
def repr_of_max_result(x):
    result = torch.max(x, dim=0)
    text = repr(result)  # expect: BR023
    return result.values, text


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4, 2)
    return {
        "str_of_arithmetic": (message_of_difference, (x, x)),
        "repr_in_callee": (calls_described, (x,)),
        "repr_of_named_tuple_result": (repr_of_max_result, (x,)),
    }
