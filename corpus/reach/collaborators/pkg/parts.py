"""Collaborator classes whose properties a traced `forward` reads (`self.kernel.width`,
`dist.spread`): each getter holds one hazard (`.item()`), where Dynamo breaks when it traces it
(tests/python/test_reach_proofs.py; tests/collaborators.rs expects scan to reach each getter).
"""

import functools

import torch


class Kernel:
    def __init__(self, size):
        self.size = size

    @property
    def width(self):
        top = torch.ones(self.size).sum().item()
        return int(top)


class Dist:
    def __init__(self, t):
        self.t = t

    @property
    def spread(self):
        return self.t.std() + self.scale

    @property
    def scale(self):
        # read inside another property: a chain of getters
        return self.t.abs().max().item()


class Shape(torch.nn.Module):
    @property
    def area(self):
        return 1.0


class Square(Shape):
    @property
    def area(self):
        # an override of a base property: `shape.area` on a `Shape` may run this one
        return torch.ones(2).sum().item()


class Cached:
    def __init__(self, t):
        self.t = t

    @functools.cached_property
    def total(self):
        return self.t.sum().item()


def make_dist(t) -> Dist:
    return Dist(t)
