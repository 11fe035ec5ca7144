"""A class used as a decorator: the decorated name holds an instance, calling it runs `__call__`."""

import torch


class counted:
    def __init__(self, function):
        self.function = function

    def __call__(self, *args):
        self.calls = torch.ones(1).sum().item()
        return self.function(*args)


@counted
def scale(x):
    return x * 2
