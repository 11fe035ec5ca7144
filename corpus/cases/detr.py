"""A detection transformer's real training step: transformers' DetrForObjectDetection (random init, a
ResNet-18-shaped backbone built from transformers' own ResNetConfig: no timm, no download, no
pretrained weights) trained with transformers' own Hungarian-matching loss (`ForObjectDetectionLoss`:
scipy's linear_sum_assignment on the cost matrix, auxiliary losses on every decoder layer) and AdamW.

Used by `graphbreak check --profile` on a GPU (README "Where the step time goes"): most of this step's
host-device syncs are in the loss. Needs transformers and scipy, so it is not in pyproject.toml's case
list and no CI test imports it:

    graphbreak check --profile corpus/cases/detr.py::case_detr_training

The forward (what torch.compile compiles) returns the heads' outputs; the loss is the callable the case
declares, so `--profile` can split the step into forward, loss, backward and optimizer. This is the same
computation as `DetrForObjectDetection(pixel_values, labels=...)`, whose forward calls the same loss
function on the same tensors.
"""

import torch
from torch import nn


class DetrHeads(nn.Module):
    """DetrForObjectDetection's forward up to the loss: logits and boxes of the last decoder layer and,
    with auxiliary_loss, of every intermediate layer (what the model passes to its loss_function)."""

    def __init__(self, detr):
        super().__init__()
        self.detr = detr

    def forward(self, pixel_values, pixel_mask):
        outputs = self.detr.model(pixel_values, pixel_mask=pixel_mask)
        sequence_output = outputs[0]
        heads = {
            "logits": self.detr.class_labels_classifier(sequence_output),
            "pred_boxes": self.detr.bbox_predictor(sequence_output).sigmoid(),
        }
        if self.detr.config.auxiliary_loss:
            intermediate = outputs.intermediate_hidden_states
            heads["outputs_class"] = self.detr.class_labels_classifier(intermediate)
            heads["outputs_coord"] = self.detr.bbox_predictor(intermediate).sigmoid()
        return heads


def random_targets(batch, objects, num_labels, generator):
    """COCO-style targets: class ids and (center x, center y, width, height) boxes in [0, 1]."""
    targets = []
    for _ in range(batch):
        centers = torch.rand(objects, 2, generator=generator) * 0.6 + 0.2
        sizes = torch.rand(objects, 2, generator=generator) * 0.3 + 0.05
        targets.append({
            "class_labels": torch.randint(0, num_labels, (objects,), generator=generator),
            "boxes": torch.cat([centers, sizes], dim=1),
        })
    return targets


def case_detr_training(batch=2, image=512, objects=8, aux_loss=True, device=None):
    from transformers import DetrConfig, DetrForObjectDetection, ResNetConfig  # noqa: PLC0415
    from transformers.loss.loss_for_object_detection import ForObjectDetectionLoss  # noqa: PLC0415

    torch.manual_seed(0)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    backbone = ResNetConfig(
        layer_type="basic", depths=[2, 2, 2, 2], hidden_sizes=[64, 128, 256, 512], out_features=["stage4"]
    )
    config = DetrConfig(
        backbone_config=backbone, use_timm_backbone=False, use_pretrained_backbone=False, num_labels=91,
        auxiliary_loss=aux_loss, dropout=0.0,
    )
    detr = DetrForObjectDetection(config)
    model = DetrHeads(detr)
    generator = torch.Generator().manual_seed(0)
    pixel_values = torch.randn(batch, 3, image, image, generator=generator)
    pixel_mask = torch.ones(batch, image, image, dtype=torch.long)
    # The harness moves the model and the args to the device; the loss's targets live there too (a
    # training loop's collate puts them there).
    targets = [{key: value.to(device) for key, value in target.items()}
               for target in random_targets(batch, objects, config.num_labels, generator)]

    def hungarian_loss(heads):
        loss, _, _ = ForObjectDetectionLoss(
            heads["logits"], targets, heads["logits"].device, heads["pred_boxes"], config,
            heads.get("outputs_class"), heads.get("outputs_coord"),
        )
        return loss

    trainable = [parameter for parameter in model.parameters() if parameter.requires_grad]
    return {
        "model": model,
        "args": (pixel_values, pixel_mask),
        "loss": hungarian_loss,
        "optimizer": torch.optim.AdamW(trainable, lr=1e-4, weight_decay=1e-4),
    }
