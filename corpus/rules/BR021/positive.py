"""BR021 positives: torch._check messages Dynamo cannot keep.

Why: measured on torch 2.11 (backend="eager"): a message lambda that reads a variable of the
enclosing function, or a message that is not a function, stops Dynamo with GB0288 "Can't extract
message from torch._check()" (an error under fullgraph=True), whatever the condition.
"""

import torch


@torch.compile
def checked(x):
    torch._check(x.shape[0] > 3, lambda: f"{x.shape[0]} is not greater than 3")  # expect: BR021
    return x + 1


def limit_checked(x):
    limit = 3
    torch._check(x.shape[0] > limit, lambda: f"need more than {limit} rows")  # expect: BR021
    return x * 2


@torch.compile
def calls_limit(x):
    return limit_checked(x)


@torch.compile
def string_message(x):
    torch._check(x.shape[0] > 3, "need more than 3 rows")  # expect: BR021
    return x + 1


def cases():
    """name -> (callable, args)."""
    x = torch.randn(4, 2)
    return {
        "lambda_reads_argument": (checked, (x,)),
        "lambda_reads_local_in_callee": (calls_limit, (x,)),
        "string_message": (string_message, (x,)),
    }
