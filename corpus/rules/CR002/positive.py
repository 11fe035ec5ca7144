"""CR002 positives: a branch guarded only by an export/tracing predicate, whose fallback holds code
that crashes or breaks under Dynamo. The fix is to add `or torch.compiler.is_compiling()`.

Observed inside torch.compile on torch 2.11: torch.jit.is_tracing() -> False and
torch.onnx.is_in_onnx_export() -> False, so the fallback runs and crashes; torch.compiler.is_exporting()
-> True (as on 2.9.1), which hides the crash on this torch, but torch < 2.7 has no is_exporting and
the getattr fallback falls through to the crashing branch.
The fallbacks are real hazards of their own; the guard's finding is one cause with the hazard it lets
through, so it is merged into that hazard's finding (`+CR002` on the hazard's line), not reported
on the guard's line.
"""

import torch
from torch import nn


def static_hw(x):
    # The (1, 2) spatial size from static shape ints, filled on the device: no host->device copy
    # (torch.tensor(list, device=cuda) / x.new_tensor(list) still copy from pageable host memory
    # and synchronize: measured on an H200).
    h = torch.full((1, 1), x.shape[2], dtype=torch.long, device=x.device)
    w = torch.full((1, 1), x.shape[3], dtype=torch.long, device=x.device)
    return torch.cat([h, w], dim=1)


class JitTracingGuard(nn.Module):
    def forward(self, x):
        if torch.jit.is_tracing():
            hw = static_hw(x)
        else:
            hw = torch.stack([torch._shape_as_tensor(x)[2:4]])  # expect: CR001 +CR002
        return x.flatten(2), hw


class OnnxExportGuard(nn.Module):
    def forward(self, x):
        # Two export predicates, still no is_compiling().
        if torch.onnx.is_in_onnx_export() or torch.jit.is_tracing():
            return x.flatten(2), static_hw(x)
        return x.flatten(2), torch.stack([torch._shape_as_tensor(x)[2:4]])  # expect: CR001 +CR002


class ExportingGuard(nn.Module):
    def forward(self, x):
        # torch.compiler.is_exporting(): True under torch.compile on 2.9.1/2.11, absent before 2.7.
        if torch.compiler.is_exporting():
            hw = static_hw(x)
        else:
            hw = torch.stack([torch._shape_as_tensor(x)[2:4]])  # expect: CR001 +CR002
        return x.flatten(2), hw


class CompatExportingGuard(nn.Module):
    def forward(self, x):
        # The compat form: on torch < 2.7 the lambda answers False and the crash is reached.
        if getattr(torch.compiler, "is_exporting", lambda: False)():
            return x.flatten(2), static_hw(x)
        return x.flatten(2), torch.stack([torch._shape_as_tensor(x)[2:4]])  # expect: CR001 +CR002


class NotTracingGuard(nn.Module):
    def forward(self, scores):
        # Inverted guard: the body is the fallback. `.tolist()` graph-breaks under Dynamo.
        if not torch.jit.is_tracing():
            order = torch.argsort(scores, descending=True)[:3].tolist()  # expect: SY002 +CR002
            # The host list indexes the device tensor: a host->device copy (a second sync).
            return scores[order]  # expect: SY003
        return scores[:3]


def cases():
    """Entry points for the proofs: name -> (module, example args)."""
    x = torch.randn(1, 3, 8, 8)
    return {
        "jit_is_tracing": (JitTracingGuard(), (x,)),
        "onnx_is_in_onnx_export": (OnnxExportGuard(), (x,)),
        "compiler_is_exporting": (ExportingGuard(), (x,)),
        "getattr_is_exporting": (CompatExportingGuard(), (x,)),
        "not_jit_is_tracing": (NotTracingGuard(), (torch.randn(6),)),
    }
