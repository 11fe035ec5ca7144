"""VR001 negatives: APIs that exist on the floor (torch>=2.2), and newer APIs reached only behind a
hasattr() check or through getattr(..., default). Nothing here may be reported.
(Whether a getattr fallback silently picks the wrong branch is CR002's business, not VR001's.)"""

import torch
import torch._dynamo
from torch import nn


@torch.compiler.disable  # 2.1
def log_shapes(x):
    return tuple(x.shape)


class Backbone(nn.Module):
    def forward(self, x):
        # torch._dynamo.is_compiling exists on 2.2 (it is the pre-2.3 spelling).
        if torch._dynamo.is_compiling():
            return x * 2
        log_shapes(x)
        return x.relu() * 2


def compiling_compat():
    # hasattr short-circuit: the attribute is only read when it exists.
    return hasattr(torch.compiler, "is_compiling") and torch.compiler.is_compiling()


def exporting_compat():
    # getattr with a default never raises on an old torch.
    return getattr(torch.compiler, "is_exporting", lambda: False)()


def evaluate(model, batches):
    if hasattr(torch.compiler, "set_stance"):
        # Guarded: only runs on torch >= 2.6.
        torch.compiler.set_stance("force_eager")
    torch.compiler.cudagraph_mark_step_begin()  # 2.2: at the floor, fine
    compiled = torch.compile(model)  # 2.0
    out = [compiled(b) for b in batches]
    torch.compiler.reset()  # 2.1
    return out


def check_version(current, required: str) -> bool:
    return torch.torch_version.TorchVersion(current) >= required


# ultralytics' shape: a module-level flag, asserted at the top of the only caller.
TORCH_2_6 = check_version(torch.__version__, "2.6.0")


def _force_eager():
    # Called only after `assert TORCH_2_6`: never runs below 2.6.
    torch.compiler.set_stance("force_eager")


def evaluate_eagerly(model, batches):
    assert TORCH_2_6, "eager evaluation needs torch>=2.6"
    _force_eager()
    try:
        return [model(b) for b in batches]
    finally:
        torch.compiler.set_stance("default")
