"""VR001 positives: torch APIs newer than this folder's declared floor (pyproject.toml: torch>=2.2).

On torch 2.2 each marked line raises AttributeError / ImportError. Versions verified against the
released wheels' sources (rules/data/torch_api_versions.toml):
torch.compiler.is_compiling 2.3, torch.compiler.set_stance 2.6, torch.compiler.is_exporting 2.7.
VR001 is not limited to compiled regions: a missing attribute fails wherever it runs.
"""

import torch
from torch import nn
from torch.compiler import is_exporting  # expect: VR001


class Backbone(nn.Module):
    def forward(self, x):
        if torch.compiler.is_compiling():  # expect: VR001
            return x * 2
        return x.relu() * 2


def export_friendly(x):
    # Imported name: the import line above is the finding, not this call.
    if is_exporting():
        return x.flatten()
    return x.reshape(-1)


def evaluate(model, batches):
    # Plain eager code, still broken on the floor: set_stance appeared in 2.6.
    torch.compiler.set_stance("force_eager")  # expect: VR001
    try:
        return [model(b) for b in batches]
    finally:
        torch.compiler.set_stance("default")  # expect: VR001


def check_version(current, required: str) -> bool:
    return torch.torch_version.TorchVersion(current) >= required


TORCH_2_6 = check_version(torch.__version__, "2.6.0")


def _force_eager():
    torch.compiler.set_stance("force_eager")  # expect: VR001


def gated_evaluate(model, batches):
    assert TORCH_2_6, "needs torch>=2.6"
    _force_eager()
    return [model(b) for b in batches]


def ungated_evaluate(model, batches):
    # One call without the assertion is enough: the helper may run on the floor.
    _force_eager()
    return [model(b) for b in batches]


def cases():
    """Entry points (runnable on the installed torch, which is above the floor)."""
    x = torch.randn(2, 3)
    return {"is_compiling_forward": (Backbone(), (x,)), "is_exporting_import": (export_friendly, (x,))}
