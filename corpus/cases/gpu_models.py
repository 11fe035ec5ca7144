"""Real models for `check` on a GPU (not run in CI: torchvision is not a test dependency). Random init,
no downloads. Run: `graphbreak check --device cuda corpus/cases/gpu_models.py`."""

import torch


def detection_targets(count, size, device=None):
    generator = torch.Generator().manual_seed(0)
    targets = []
    for _ in range(count):
        corners = torch.rand(3, 2, generator=generator) * (size / 2)
        extents = torch.rand(3, 2, generator=generator) * (size / 2) + 8
        boxes = torch.cat([corners, corners + extents], dim=1)
        targets.append({"boxes": boxes, "labels": torch.randint(1, 91, (3,), generator=generator)})
    return targets


def total_loss(losses):
    return sum(losses.values())


def with_sgd(case, sgd):
    """`sgd=True`: the step ends with SGD (momentum 0.9), as a training loop's does."""
    if sgd:
        case["optimizer"] = torch.optim.SGD(case["model"].parameters(), lr=1e-3, momentum=0.9)
    return case


def case_fasterrcnn_train_bf16(sgd=False):
    """torchvision Faster R-CNN (MobileNetV3-FPN) training step in bf16 autocast: the loss dict is the
    output; proposal sampling draws random numbers (fallback_random applies)."""
    import torchvision  # noqa: PLC0415 - GPU-only case

    torch.manual_seed(0)
    model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_fpn(weights=None, weights_backbone=None)
    images = [torch.rand(3, 320, 320) for _ in range(2)]
    case = {
        "model": model,
        "args": (images, detection_targets(2, 320)),
        "loss": total_loss,
        "dtype": "bfloat16",
    }
    return with_sgd(case, sgd)


def case_resnet50_train_bf16(batch=32, sgd=False):
    """torchvision ResNet-50 training step in bf16 autocast, batch 32 at 224x224 (one graph)."""
    import torchvision  # noqa: PLC0415 - GPU-only case

    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None)
    case = {
        "model": model,
        "args": (torch.randn(batch, 3, 224, 224),),
        "loss": lambda logits: torch.nn.functional.cross_entropy(
            logits.float(), torch.arange(batch, device=logits.device) % 1000
        ),
        "dtype": "bfloat16",
    }
    return with_sgd(case, sgd)


def case_transformer_encoder_train_bf16(layers=6, width=512, batch=32, seq=256):
    """A 6-layer d=512 Transformer encoder (torch.nn) training step in bf16 autocast with dropout 0.1: the
    step draws random numbers, so the compile runs with fallback_random and parity still holds."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(width, nhead=8, dim_feedforward=4 * width, batch_first=True, dropout=0.1)
    model = torch.nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)
    return {
        "model": model,
        "args": (torch.randn(batch, seq, width),),
        "loss": lambda out: out.float().pow(2).mean(),
        "dtype": "bfloat16",
    }
