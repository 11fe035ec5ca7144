"""effdet 0.4.1 detectors as `graphbreak check` cases (random init: pretrained=False, pretrained_backbone=False).

Users build a detector with `create_model(name, bench_task='train' | 'predict', num_classes=..., image_size=...)`
(README, train.py / validate.py) and compile the bench: DetBenchTrain(x, target) returns the detection loss
(focal + box loss over anchors labelled inside the bench when `bench_labeler=True`); DetBenchPredict(x) returns the
post-processed detections (top-k, box decoding, batched NMS). The bare EfficientDet (`bench_task=''`) returns class
and box outputs per level. Images are 128 px with 4 classes and `max_detection_points=100` so CPU runs are quick.
"""

import torch
from effdet import create_model_from_config, get_efficientdet_config

SIZE = 128
CLASSES = 4


def _model(name, bench_task):
    config = get_efficientdet_config(name)
    config.image_size = (SIZE, SIZE)
    config.max_detection_points = 100
    config.max_det_per_image = 20
    return create_model_from_config(config, bench_task=bench_task, num_classes=CLASSES, pretrained=False,
                                    pretrained_backbone=False, bench_labeler=bench_task == "train")


def _images(batch=2):
    g = torch.Generator().manual_seed(0)
    return torch.randn(batch, 3, SIZE, SIZE, generator=g)


def _target(batch=2):
    # yxyx boxes in pixels, padded with -1 as effdet's loader pads them
    bbox = torch.tensor([[10.0, 12.0, 60.0, 70.0], [40.0, 30.0, 120.0, 100.0], [-1, -1, -1, -1]])
    cls = torch.tensor([1.0, 3.0, -1.0])
    return {"bbox": bbox.expand(batch, -1, -1).clone(), "cls": cls.expand(batch, -1).clone(),
            "img_scale": torch.ones(batch), "img_size": torch.tensor([[SIZE, SIZE]] * batch)}


def case_train(name="tf_efficientdet_d0"):
    """DetBenchTrain step: loss = bench(images, target)['loss']; backward."""
    torch.manual_seed(0)
    bench = _model(name, "train")
    return {"model": bench, "args": (_images(), _target()), "loss": lambda out: out["loss"]}


def case_predict(name="tf_efficientdet_d0"):
    """DetBenchPredict: detections = bench(images) (eval, no_grad)."""
    torch.manual_seed(0)
    return {"model": _model(name, "predict"), "args": (_images(),)}


def case_model(name="tf_efficientdet_d0"):
    """The bare EfficientDet: class / box outputs per feature level (eval)."""
    torch.manual_seed(0)
    return {"model": _model(name, ""), "args": (_images(),)}


class _TrainEval(torch.nn.Module):
    """validate step of train.py: DetBenchTrain in eval mode returns the loss and the detections."""

    def __init__(self, bench):
        super().__init__()
        self.bench = bench

    def forward(self, x, target):
        self.bench.eval()
        return self.bench(x, target)


def case_train_bench_eval(name="tf_efficientdet_d0"):
    torch.manual_seed(0)
    return {"model": _TrainEval(_model(name, "train")), "args": (_images(), _target())}
