"""SY002 where only `fullgraph=True` compiles reach the read: from torch 2.11 Dynamo captures
`.item()` there (no graph break, only the sync), where older torches refuse it and the compile
raises. The message names the torches on which each holds (the corpus declares no torch floor).

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (rules/data/scalar_reads.toml): compiled with
`fullgraph=True`, a function scaling by `x.max().item()` raises `Unsupported` on 2.2–2.8 and
compiles to one graph on 2.11. The same read reached by a compile without `fullgraph` breaks on
every torch (positive.py).
"""

import torch


def scaled_by_peak(x):
    return x * x.max().item()  # expect: SY002


compiled_scaled_by_peak = torch.compile(scaled_by_peak, fullgraph=True)


@torch.compile(fullgraph=True)
def shifted_by_count(x):
    return x + int((x > 0).sum())  # expect: SY002


def cases():
    """name -> (function, args): compiled with fullgraph=True by the proof."""
    x = torch.randn(4)
    return {"item": (scaled_by_peak, (x,)), "int": (shifted_by_count._torchdynamo_orig_callable, (x,))}
