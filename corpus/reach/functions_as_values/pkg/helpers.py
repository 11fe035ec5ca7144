"""Functions a traced `forward` runs without naming them in a call (pkg/model.py)."""


def identity(x):
    return x + x.sum().item()


def keep_positive(x):
    return x[x.sum(-1) > 0]


def squeeze_item(x):
    return x.mean().item()


def apply_to(data, fn):
    return fn(data)


def pack(x):
    def unpack(y):
        return y.max().item() + y

    return x, unpack


class Criterion:
    def __call__(self, y):
        return y * y.abs().max().item()
