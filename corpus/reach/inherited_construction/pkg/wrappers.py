import functools


def is_positive(x):
    if x.sum() > 0:  # a tensor branch: breaks the graph when traced
        return True
    return False


def keep_kind(fn=None, tag="default"):
    # A decorator (and decorator factory): the decorated name holds `wrapper`, which calls `fn`.
    if fn is None:
        return functools.partial(keep_kind, tag=tag)

    @functools.wraps(fn)
    def wrapper(module, x):
        is_positive(x)
        return fn(module, x)

    return wrapper
