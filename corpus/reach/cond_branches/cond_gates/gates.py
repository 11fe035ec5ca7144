"""`torch.cond` branches: Dynamo traces each as one graph, eagerly too, so a break inside one makes
the `torch.cond` call raise (UncapturedHigherOrderOpError). A cond called from eager code still
has its branches traced: they are roots. tests/python/test_cond_branch_proofs.py runs every case
eagerly and compiled (backend "eager") on the installed torch.
"""

import torch
import torch.nn as nn

LIMIT = torch.tensor([3.0])


def smaller(x):
    return x - 1


class LoudGate(nn.Module):
    def forward(self, p, x):
        def loud(x):
            print("taken")  # cond-break: print
            return x * 2

        return torch.cond(p, loud, smaller, (x,))


class ScaledGate(nn.Module):
    def forward(self, p, x):
        def scaled(x):
            return x * LIMIT.item()  # cond-break: item

        return torch.cond(p, scaled, smaller, (x,))


def jumpy(x):
    if x.sum() > 0:  # cond-break: branch
        return x * 2
    return x * 3


def eager_gate(p, x):
    return torch.cond(p, jumpy, smaller, (x,))


compiled_loud = torch.compile(LoudGate())
compiled_scaled = torch.compile(ScaledGate())


def cases():
    """name -> (callable, args, called compiled by its root): every one raises compiled, and
    eagerly except `.item()` on torch 2.11 (captured, as under fullgraph=True)."""
    p, x = torch.tensor(True), torch.ones(3)
    return {
        "print": (LoudGate(), (p, x), True),
        "item": (ScaledGate(), (p, x), True),
        "branch": (eager_gate, (p, x), False),
    }
