"""BR020 positives: a `class` statement inside traced code.

Why: a class statement runs the builtin `__build_class__` (bytecode LOAD_BUILD_CLASS), which
Dynamo does not trace. Measured with backend="eager": torch 2.11 breaks the graph at the
statement (GB0007 "Attempted to call function marked as skipped"); torch 2.2, 2.5 and 2.8 give
up on the whole frame (no graph at all).
"""

from typing import NamedTuple

import torch
from torch import nn


class LocalOutput(nn.Module):
    def forward(self, x):
        y = x.sin()

        class Output(NamedTuple):  # expect: BR020
            logits: torch.Tensor

        return Output(y * 2)


def make_record(x):
    class Record:  # expect: BR020
        pass

    record = Record()
    record.value = x
    return record


class CallsHelperThatDefinesAClass(nn.Module):
    def forward(self, x):
        y = x + 1
        return make_record(y).value * 2


def cases():
    """name -> (callable, args)."""
    x = torch.randn(3, 4)
    return {
        "class_in_forward": (LocalOutput(), (x,)),
        "class_in_callee": (CallsHelperThatDefinesAClass(), (x,)),
    }
