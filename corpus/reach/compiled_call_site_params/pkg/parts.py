"""Values a compiled function receives from its call site (see steps.py)."""

import torch


class Recorder:
    def __setattr__(self, name, value):
        print("stored", name)  # reached: `rec.last = y` in steps.step
        object.__setattr__(self, name, value)

    def summary(self, y):
        torch._dynamo.graph_break()  # reached: `rec.summary(y)` in steps.step
        return y


def scale(x):
    return x * x.sum().item()  # reached: `head(x)` in steps.step


def unused(x):
    return x.sum().item()  # never passed: not reached
