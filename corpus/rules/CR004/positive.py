"""CR004 positives: a `torch.cond` branch that writes state outside itself.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11: torch.cond traces its branches with Dynamo, eagerly
too, and the call raises, compiled (backend="eager", no fullgraph) or not
(UncapturedHigherOrderOpError: "Cond doesn't work unless it is captured completely with
torch.compile"; 2.11: "This higher order operator doesn't work unless it is captured
completely").
"""

import torch
from torch import nn

SEEN = []


class Recording(nn.Module):
    def __init__(self):
        super().__init__()
        self.last_input = None

    def forward(self, x):
        def grow(x):
            self.last_input = x  # expect: CR004
            return x.sin()

        def shrink(x):
            return x.cos()

        return torch.cond(x.sum() > 0, grow, shrink, (x,))


def remember(x):
    SEEN.append(x)  # expect: CR004
    return x.sin()


def forget(x):
    return x.cos()


class Remembering(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, remember, forget, (x,))


def cases():
    """name -> (module, args)."""
    x = torch.ones(3)
    return {"self_attribute": (Recording(), (x,)), "module_list": (Remembering(), (x,))}
