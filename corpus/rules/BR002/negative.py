"""BR002 negatives: probes that run once at import, outside traced code, or plain imports."""

import torch
from torch import nn

try:
    import graphbreak_missing_flash_attn  # noqa: F401

    HAS_FLASH_ATTN = True
except ImportError:
    # Module level: runs once at import time, never traced.
    HAS_FLASH_ATTN = False


def kernel_available():
    # Called from setup code only, never from forward.
    try:
        import graphbreak_missing_triton_kernels  # noqa: F401

        return True
    except ImportError:
        return False


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.fused = kernel_available()

    def forward(self, q, k, v):
        # A successful import of an already-loaded module traces fine (1 graph, measured).
        import math

        scores = (q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])).softmax(-1)
        return scores @ v


class DefensiveImports(nn.Module):
    def forward(self, x):
        # torch is always importable here, and the except is not an ImportError probe anyway.
        try:
            import torch.nn.functional as F

            return F.relu(x)
        except Exception:
            return x


class StdlibProbe(nn.Module):
    def forward(self, x):
        # A standard-library module cannot be missing.
        try:
            import json  # noqa: F401
        except ImportError:
            pass
        return x * 3


class DisabledProbe(nn.Module):
    @torch.compiler.disable
    def _probe(self):
        try:
            import graphbreak_missing_apex  # noqa: F401

            return True
        except ImportError:
            return False

    def forward(self, x):
        # One deliberate break at the disabled call; the probe itself never traces.
        return x * 2 if self._probe() else x + 1  # noqa: BR006 (deliberate)


def cases():
    """Region code for the proofs: name -> (module, example args)."""
    q = torch.randn(2, 4, 8)
    return {
        "plain_import_in_forward": (Attention(), (q, q, q)),
        "disabled_probe": (DisabledProbe(), (torch.randn(3),)),
        "stdlib_probe": (StdlibProbe(), (torch.randn(3),)),
        "defensive_imports": (DefensiveImports(), (torch.randn(3),)),
    }
