"""python-doctr 1.1.0 models as `graphbreak check` cases (random init: pretrained=False; nothing downloaded).

Users compile doctr's detection and recognition networks (the docs' "torch.compile" recipe compiles the model a
predictor wraps, e.g. `torch.compile(fast_base(pretrained=True))` passed to `ocr_predictor`), and fine-tune them
with the reference training scripts, whose step is `loss = model(images, targets)["loss"]; loss.backward()`.
Eval cases call the model as the predictors do (`model(batch, return_preds=True)`: network + post-processing,
which doctr itself marks `torch.compiler.disable`); training cases pass the targets the reference scripts build
(detection: per image a dict of relative float32 boxes per class; recognition: the words as strings).
Images are small (128 px pages for detection, 32x128 crops for recognition) so CPU runs are quick.
"""

import numpy as np
import torch
import torch.nn.functional as F
from doctr.models import classification, detection, recognition

DET_SIZE = 128


def _pages(batch=2):
    g = torch.Generator().manual_seed(0)
    return torch.rand(batch, 3, DET_SIZE, DET_SIZE, generator=g)


def _crops(batch=2):
    g = torch.Generator().manual_seed(0)
    return torch.rand(batch, 3, 32, 128, generator=g)


def _det_target(batch=2):
    boxes = np.array([[0.1, 0.1, 0.5, 0.3], [0.2, 0.6, 0.9, 0.8]], dtype=np.float32)
    return [{"words": boxes.copy()} for _ in range(batch)]


def case_detection(arch="db_resnet50", train=False):
    torch.manual_seed(0)
    model = detection.__dict__[arch](pretrained=False, pretrained_backbone=False)
    if train:
        return {"model": model, "args": (_pages(), _det_target()), "loss": lambda out: out["loss"]}
    return {"model": model, "args": (_pages(),), "kwargs": {"return_preds": True}}


def case_recognition(arch="crnn_vgg16_bn", train=False):
    torch.manual_seed(0)
    model = recognition.__dict__[arch](pretrained=False, pretrained_backbone=False)
    if train:
        return {"model": model, "args": (_crops(), ["hello", "world"]), "loss": lambda out: out["loss"]}
    return {"model": model, "args": (_crops(),), "kwargs": {"return_preds": True}}


def case_classification(arch="mobilenet_v3_small_crop_orientation", train=False):
    """Orientation classifiers (crop / page orientation predictors' networks) and backbones: logits; CE in training."""
    torch.manual_seed(0)
    model = classification.__dict__[arch](pretrained=False)
    x = torch.rand(2, 3, 256, 256)
    case = {"model": model, "args": (x,)}
    if train:
        labels = torch.tensor([0, 1])
        case["loss"] = lambda out: F.cross_entropy(out, labels)
    return case
