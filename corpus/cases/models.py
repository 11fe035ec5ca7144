"""Real models for scripts/bench_gpus.sh (`check --gpus 1` vs `--gpus 2` on a 2-GPU host): torchvision
models and a Transformer encoder, random weights (nothing is downloaded). Not in the default case list:
each takes tens of seconds to compile, and torchvision is not a test dependency."""

import torch
from torch import nn


def _vision(builder, batch=32):
    import torchvision

    torch.manual_seed(0)
    model = getattr(torchvision.models, builder)(weights=None).eval()
    return {"model": model, "args": (torch.randn(batch, 3, 224, 224),), "atol": 1e-2, "rtol": 1e-2}


def case_resnet50():
    return _vision("resnet50")


def case_vit_b_16():
    return _vision("vit_b_16")


def case_convnext_tiny():
    return _vision("convnext_tiny")


def case_transformer_encoder(layers=6, width=512, batch=32, seq=256):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(width, nhead=8, dim_feedforward=4 * width, batch_first=True, dropout=0.0)
    model = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False).eval()
    return {"model": model, "args": (torch.randn(batch, seq, width),), "atol": 1e-2, "rtol": 1e-2}
