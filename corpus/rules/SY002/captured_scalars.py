"""SY002 with `capture_scalar_outputs = True`: `.item()` stays in the graph, so only the sync is
left to report (and nothing for a tensor built on the host).

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager", fullgraph=True): with
`torch._dynamo.config.patch(capture_scalar_outputs=True)` a function scaling by `x.max().item()`
or by `float(x.max())` compiles whole; without it, it breaks at the read. A patch counts for its
file (an assignment `torch._dynamo.config.capture_scalar_outputs = True` counts for the tree).
"""

import torch
import torch._dynamo


def scaled_by_peak(x):
    return x * x.max().item()  # expect: SY002


def scaled_by_host_count(x):
    n = torch.tensor([3.0]).item()
    return x * n


@torch._dynamo.config.patch(capture_scalar_outputs=True)
def run(x):
    return torch.compile(scaled_by_peak)(x) + torch.compile(scaled_by_host_count)(x)


def cases():
    """name -> (function, args): compiled whole under the patch."""
    x = torch.randn(4)
    return {"device_item": (scaled_by_peak, (x,)), "host_item": (scaled_by_host_count, (x,))}
