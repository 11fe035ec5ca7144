"""timm image models (random init, pretrained=False) as `graphbreak check` cases."""

import timm
import torch


def case_timm(name="vit_tiny_patch16_224", train=False):
    torch.manual_seed(0)
    model = timm.create_model(name, pretrained=False, num_classes=10)
    size = model.pretrained_cfg.get("input_size", (3, 224, 224))[1:]
    images = torch.rand(2, 3, *size)
    case = {"model": model, "args": (images,), "compile": {"backend": "eager"}}
    if train:
        labels = torch.tensor([1, 3])
        case["loss"] = lambda logits: torch.nn.functional.cross_entropy(logits, labels)
    return case
