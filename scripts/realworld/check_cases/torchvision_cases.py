"""torchvision detection models (random init, no downloads) as `graphbreak check` cases: eval and one
training step each. Small images keep a CPU run to seconds per eager step; Dynamo's facts (what it traced,
where it broke) do not depend on the image size."""

import torch
import torchvision
from torchvision.models import detection

IMAGE_SIZE = 160


def images(count=2, size=IMAGE_SIZE):
    generator = torch.Generator().manual_seed(0)
    return [torch.rand(3, size, size + 16 * index, generator=generator) for index in range(count)]


def targets(count=2, size=IMAGE_SIZE, masks=False, keypoints=False):
    made = []
    for index in range(count):
        boxes = torch.tensor([[10.0, 12.0, 70.0, 90.0], [40.0, 30.0, 120.0, 110.0]])
        target = {"boxes": boxes, "labels": torch.tensor([1, 2 + index])}
        if masks:
            mask = torch.zeros(2, size, size + 16 * index, dtype=torch.uint8)
            mask[0, 12:90, 10:70] = 1
            mask[1, 30:110, 40:120] = 1
            target["masks"] = mask
        if keypoints:
            target["keypoints"] = torch.tensor(
                [[[20.0, 20.0, 1.0]] * 17, [[60.0, 50.0, 1.0]] * 17]
            )
        made.append(target)
    return made


def total_loss(losses):
    return sum(losses.values())


BUILDERS = {
    "fasterrcnn_mobilenet_v3_large_fpn": (detection.fasterrcnn_mobilenet_v3_large_fpn, {}),
    "retinanet_resnet50_fpn": (detection.retinanet_resnet50_fpn, {}),
    "fcos_resnet50_fpn": (detection.fcos_resnet50_fpn, {}),
    "ssdlite320_mobilenet_v3_large": (detection.ssdlite320_mobilenet_v3_large, {}),
    "maskrcnn_resnet50_fpn": (detection.maskrcnn_resnet50_fpn, {"masks": True}),
    "keypointrcnn_resnet50_fpn": (detection.keypointrcnn_resnet50_fpn, {"keypoints": True}),
}


def build(name):
    builder, _ = BUILDERS[name]
    kwargs = {"weights": None, "weights_backbone": None}
    if not name.startswith("ssdlite"):
        # The R-CNN/RetinaNet/FCOS transform resizes to 800-1333 px by default: minutes per CPU step.
        kwargs.update(min_size=IMAGE_SIZE, max_size=IMAGE_SIZE + 32)
    if name.startswith("keypointrcnn"):
        kwargs["num_classes"] = 2
    if name.startswith("ssdlite"):
        kwargs["num_classes"] = 91
    torch.manual_seed(0)
    return builder(**kwargs)


def case_detection_eval(name="fasterrcnn_mobilenet_v3_large_fpn"):
    return {"model": build(name), "args": (images(),), "compile": {"backend": "eager"}}


def case_detection_train(name="fasterrcnn_mobilenet_v3_large_fpn"):
    _, extra = BUILDERS[name]
    model_targets = targets(**extra)
    if name.startswith("keypointrcnn"):
        for target in model_targets:
            target["labels"] = torch.ones_like(target["labels"])
    return {
        "model": build(name),
        "args": (images(), model_targets),
        "loss": total_loss,
        "compile": {"backend": "eager"},
    }


def case_classifier(name="resnet18"):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None)
    return {"model": model, "args": (torch.rand(2, 3, 96, 96),), "compile": {"backend": "eager"}}
