"""CR002 negatives: export guards that also check is_compiling(), export guards whose fallback is
harmless, and export guards outside any compiled region. Nothing here may be reported."""

import torch
from torch import nn


def static_hw(x):
    # The (1, 2) spatial size from static shape ints, filled on the device: no host->device copy
    # (torch.tensor(list, device=cuda) / x.new_tensor(list) still copy from pageable host memory
    # and synchronize: measured on an H200).
    h = torch.full((1, 1), x.shape[2], dtype=torch.long, device=x.device)
    w = torch.full((1, 1), x.shape[3], dtype=torch.long, device=x.device)
    return torch.cat([h, w], dim=1)


def _is_compiling():
    # Project helper predicate returning torch.compiler.is_compiling().
    return torch.compiler.is_compiling()


class ExportOrCompileGuard(nn.Module):
    def forward(self, x):
        # is_exporting() together with is_compiling(): the else branch is eager-only.
        if torch.compiler.is_exporting() or torch.compiler.is_compiling():
            hw = static_hw(x)
        else:
            hw = torch.stack([torch._shape_as_tensor(x)[2:4]])
        return x.flatten(2), hw


class TracingOrHelperGuard(nn.Module):
    def forward(self, x):
        # Tracing predicate plus a project is_compiling helper: fallback is eager-only.
        if torch.jit.is_tracing() or _is_compiling():
            return x.flatten(2), static_hw(x)
        return x.flatten(2), torch.stack([torch._shape_as_tensor(x)[2:4]])


class HarmlessFallback(nn.Module):
    def forward(self, x):
        # Export-only guard, but the fallback traces fine under Dynamo: nothing to warn about.
        if torch.onnx.is_in_onnx_export():
            y = x.clamp(min=0)
        else:
            y = torch.relu(x)
        return y * 2


class TracingGuardedProjection(nn.Module):
    """The traced branch calls a plain `nn.Linear` submodule: a `self.<attr>` call is a candidate
    break only until linking finds its class is no module Dynamo refuses to wrap, so it is no
    reason for the guard finding either."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        if torch.jit.is_tracing():
            return x
        return self.proj(x)


def export_sizes(x):
    # Export utility called only from export_to_onnx (not from any forward): never compiled.
    if torch.jit.is_tracing():
        return static_hw(x)
    return torch.stack([torch._shape_as_tensor(x)[2:4]])


def export_to_onnx(model, x, path):
    sizes = export_sizes(x)
    torch.onnx.export(model, (x,), path)
    return sizes


def cases():
    """Region code for the proofs (each compiles with 0 graph breaks)."""
    x = torch.randn(1, 3, 8, 8)
    return {
        "exporting_or_compiling": (ExportOrCompileGuard(), (x,)),
        "tracing_or_helper": (TracingOrHelperGuard(), (x,)),
        "harmless_fallback": (HarmlessFallback(), (x,)),
        "tracing_guarded_projection": (TracingGuardedProjection(), (torch.randn(2, 8),)),
    }
