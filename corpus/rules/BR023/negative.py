"""BR023 negatives: text Dynamo can build inside traced code, and eager code.

An f-string of a tensor compiles (measured on 2.2-2.11); text of `.shape` is a constant; `str` of
a named-tuple result is left alone (it compiles on 2.11); code outside compiled regions is eager.
"""

import torch


@torch.compile
def shape_text(x):
    y = x + 1
    return y, str(y.shape)


@torch.compile
def formatted(x):
    y = x + 1
    return y, f"{y}"


@torch.compile
def str_of_sort_result(x):
    result = torch.sort(x, dim=0)
    return result.values, str(result)


def eager_text(x):
    return str(x + 1)


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4, 2)
    return {
        "shape_text": (shape_text, (x,)),
        "f_string": (formatted, (x,)),
    }
