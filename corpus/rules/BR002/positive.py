"""BR002 positives: availability probes (`try: import ... except ImportError`) inside traced code.

The modules below do not exist, as on a machine without the optional kernel: the import fails while
Dynamo traces, GB0069 "Import failure", and the whole frame runs eagerly (0 graphs on torch 2.11).
"""

import torch
from torch import nn


class Attention(nn.Module):
    def forward(self, q, k, v):
        try:
            import graphbreak_missing_flash_attn  # noqa: F401  # expect: BR002

            use_flash = True
        except ImportError:
            use_flash = False
        scores = (q @ k.transpose(-1, -2)).softmax(-1)
        return scores @ v if not use_flash else v


def _fused_norm_available():
    # A helper called from compiled code is traced too.
    try:
        from graphbreak_missing_apex import fused_layer_norm  # noqa: F401  # expect: BR002

        return True
    except (ImportError, ModuleNotFoundError):
        return False


@torch.compile(backend="eager")
def normalize(x):
    if _fused_norm_available():
        return x
    return torch.nn.functional.layer_norm(x, x.shape[-1:])


@torch.compile(backend="eager")
def swiglu(x):
    # `except Exception` is a probe too: the failed import is the same GB0069.
    try:
        import graphbreak_missing_xformers  # noqa: F401  # expect: BR002

        fused = True
    except Exception:
        fused = False
    a, b = x.chunk(2, dim=-1)
    return (a * torch.sigmoid(a) * b) if not fused else a


def cases():
    """Entry points for the proofs: name -> (callable, example args)."""
    q = torch.randn(2, 4, 8)
    return {
        "probe_in_forward": (Attention(), (q, q, q)),
        "probe_in_called_helper": (normalize, (torch.randn(2, 8),)),
        "except_exception_probe": (swiglu, (torch.randn(2, 8),)),
    }
