"""A compiled function's parameters take their class or function from its call site.

`step` is compiled here and given a `Recorder` and `scale`: Dynamo traces `Recorder.__setattr__`
(for `rec.last = y`), `Recorder.summary` and `scale` as part of `step`'s frame.
"""

import torch

from pkg.parts import Recorder, scale


def step(rec, head, x):
    y = head(x)
    rec.last = y
    return rec.summary(y)


def plain(rec, head, x):
    # Called normally, never compiled: what it is given does not bind anything.
    return head(x)


def case_step():
    return step, (Recorder(), scale, torch.randn(3))


def run():
    recorder = Recorder()
    compiled = torch.compile(step, backend="eager")
    compiled(recorder, scale, torch.randn(3))
    plain(recorder, scale, torch.randn(3))
