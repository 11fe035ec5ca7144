"""A case big enough for compile cost to matter, used by scripts/bench_check.sh (cold vs warm
Inductor cache, graphbreak's own overhead). Not in the default case list: a cold CPU compile takes
tens of seconds."""

import torch
from torch import nn


def case_convnet(width=32):
    torch.manual_seed(0)
    layers = []
    channels = 3
    for _ in range(4):
        layers += [nn.Conv2d(channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.GELU()]
        channels = width
    model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, 10)).eval()
    return {"model": model, "args": (torch.randn(8, 3, 64, 64),)}


def case_transformer_encoder(layers=4, width=512, batch=16, seq=256):
    """A 4-layer Transformer encoder (d_model 512): enough fused attention/MLP work for Inductor's
    compile cost and speedup to be real numbers on a GPU."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(width, nhead=8, dim_feedforward=4 * width, batch_first=True, dropout=0.0)
    model = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False).eval()
    return {"model": model, "args": (torch.randn(batch, seq, width),), "atol": 1e-3, "rtol": 1e-3}
