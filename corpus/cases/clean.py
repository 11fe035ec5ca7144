"""Cases that compile cleanly: no graph breaks, parity within tolerance.

`case_clean_mlp` is the one case that uses Inductor (the default backend), for real timings and
parity; keep it tiny so a cold CPU compile stays in seconds.
"""

import torch
from torch import nn

WIDTHS = {"nano": 16, "small": 32, "base": 64}


class MLP(nn.Module):
    def __init__(self, width=16, depth=2):
        super().__init__()
        layers = []
        for _ in range(depth):
            layers += [nn.Linear(width, width), nn.GELU()]
        self.body = nn.Sequential(*layers)
        self.out = nn.Linear(width, 4)

    def forward(self, x):
        return self.out(self.body(x))


def case_clean_mlp():
    torch.manual_seed(0)
    return MLP(16), (torch.randn(8, 16),)


def case_clean_training():
    """Training mode (a `loss` is given): forward + loss + backward, gradients compared.
    aot_eager exercises AOTAutograd's forward/backward split without Inductor's compile time."""
    torch.manual_seed(0)
    return {
        "model": MLP(16),
        "args": (torch.randn(8, 16),),
        "loss": lambda out: out.pow(2).mean(),
        "metric": lambda out: float(out.argmax(dim=1).float().mean()),
        "compile": {"backend": "aot_eager"},
    }


def build(size="nano"):
    """Parametrized factory for the config matrix: `params = { size = ["nano", "small"] }`."""
    if size not in WIDTHS:
        raise ValueError("unknown size %r (expected one of %s)" % (size, ", ".join(WIDTHS)))
    torch.manual_seed(0)
    width = WIDTHS[size]
    return {
        "model": MLP(width),
        "args": (torch.randn(4, width),),
        "compile": {"backend": "eager"},
    }


def case_clean_bf16():
    """Autocast (`dtype`): parity uses the looser bfloat16 tolerances."""
    torch.manual_seed(0)
    return {
        "model": MLP(16),
        "args": (torch.randn(8, 16),),
        "dtype": "bfloat16",
        "compile": {"backend": "aot_eager"},
    }
