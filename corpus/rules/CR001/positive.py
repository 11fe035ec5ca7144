"""CR001 positives: `torch._shape_as_tensor(...)` fed to torch.stack / torch.cat in a compiled region.

Why: under Dynamo `torch._shape_as_tensor(x)` evaluates to a `torch.Size`, not a Tensor, so
torch.stack / torch.cat raise `TypeError: expected Tensor as element 0 in argument 0, but got
torch.Size` (torch 2.11, backend="eager" and inductor alike). Eager mode runs every case fine.
Each marker sits on the line where the torch.stack / torch.cat call starts.
"""

import torch
import torch as T
from torch import _shape_as_tensor as shape_of
from torch import nn


def spatial_size(feature):
    # Project helper; in a region because SizedHead.forward calls it.
    return torch.stack([torch._shape_as_tensor(feature)[2:4]])  # expect: CR001


class SizedHead(nn.Module):
    """The detection-library pattern: keep the feature-map size as a tensor for export."""

    def forward(self, x):
        # forward of an nn.Module subclass is a compiled region.
        sizes = spatial_size(x)
        return x.flatten(2).mean(-1), sizes


class MultiScaleSizes(SizedHead):
    """Subclass of a project module: still an nn.Module, so forward is a region."""

    def forward(self, x, y):
        # `from torch import _shape_as_tensor as shape_of` alias, multi-line call: the marker is
        # on the line where torch.stack starts.
        hw = torch.stack(  # expect: CR001
            [shape_of(x)[-2:], shape_of(y)[-2:]]
        )
        return x.sum() + y.sum(), hw


@torch.compile
def flat_shapes(x):
    # @torch.compile-decorated function; `import torch as T` alias for both calls.
    return T.cat([T._shape_as_tensor(x), T._shape_as_tensor(x)[:1]])  # expect: CR001


def padded_size(x):
    # Not decorated: a region because it is passed to torch.compile below.
    size = torch.stack([shape_of(x)[2:], shape_of(x)[2:]])  # expect: CR001
    return x * 2, size


compiled_padded_size = torch.compile(padded_size, dynamic=False)


@torch.compile(backend="eager")
def spatial_through_local(x):
    # The shape tensor kept in a local first: the same torch.Size under Dynamo.
    sizes = torch._shape_as_tensor(x)
    return x.sum(), torch.stack([sizes[2:4]])  # expect: CR001


@torch.compile(backend="eager")
def pixel_count(x):
    # A tensor method on it: torch.Size has no .prod() -> AttributeError while tracing.
    return x.sum() / torch._shape_as_tensor(x)[2:].prod()  # expect: CR001


def cases():
    """Entry points for the proofs: name -> (callable as written, example args)."""
    x = torch.randn(1, 3, 8, 8)
    y = torch.randn(1, 3, 4, 4)
    return {
        "forward_via_helper": (SizedHead(), (x,)),
        "subclass_forward_alias": (MultiScaleSizes(), (x, y)),
        "decorated_function": (flat_shapes, (x,)),
        "passed_to_torch_compile": (padded_size, (x,)),
        "through_a_local": (spatial_through_local, (x,)),
    }
