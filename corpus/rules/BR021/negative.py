"""BR021 negatives: messages Dynamo keeps, and checks outside compiled code.

Why: measured on torch 2.11 (backend="eager"): a message lambda that reads only constants or
module globals, or no message, compiles in one graph.
"""

import torch

LIMIT = 3


@torch.compile
def constant_messages(x):
    torch._check(x.shape[0] > 3, lambda: "need more than 3 rows")
    torch._check(x.shape[0] > LIMIT, lambda: f"need more than {LIMIT} rows")
    torch._check(x.shape[0] > 3)
    return x + 1


def eager_check(x):
    # never compiled: the message closure costs nothing here
    torch._check(x.shape[0] > 3, lambda: f"{x.shape[0]} is not greater than 3")
    return x


def cases():
    return {"constant_messages": (constant_messages, (torch.randn(4, 2),))}
