import torch.nn as nn

__all__ = ["nn", "report"]


def report(x):
    print("value", x)
    return x


def _private(x):
    return x.item()
