"""Classes deriving from another installed distribution's bases (corpus/reach/environment_bases/env)."""

import torch
from basedist import Plain, Runner


class Scorer(Runner):
    # Not a forward: `Runner.forward` (in the environment) calls it through `run_step`.
    def compute(self, x):
        if x.sum() > 0:
            return x * 2
        return x


class Tally(Plain):
    # `Plain` is no Module: nothing compiles this.
    def compute(self, x):
        if x.sum() > 0:
            return x * 2
        return x


def case(name):
    return globals()[name](), (torch.ones(3),)
