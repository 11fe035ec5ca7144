# Dynamo's own entry points compile what they are applied to, like torch.compile:
# `torch._dynamo.optimize(backend)(fn)` and `@torch._dynamo.optimize(backend)`.
import torch
import torch._dynamo


def wrapped_step(x):
    print("wrapped")  # graph break: compiled through torch._dynamo.optimize(...)(fn)
    return x + 1


compiled_step = torch._dynamo.optimize("eager")(wrapped_step)


@torch._dynamo.optimize("eager")
def decorated_step(x):
    print("decorated")  # graph break: decorated with torch._dynamo.optimize(...)
    return x * 2


def never_compiled(x):
    print("eager only")  # no finding: nothing compiles this function
    return x
