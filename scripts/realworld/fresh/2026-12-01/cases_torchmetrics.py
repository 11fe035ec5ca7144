"""torchmetrics 1.9.0 metrics as `graphbreak check` cases.

Users compute metrics inside the step they compile: functional metrics on a batch (eval), differentiable
ones as a loss (1 - SSIM, negative SI-SDR, ...: training, backward into the prediction), and module metrics
(`metric(preds, target)` = update + batch value, as a LightningModule's training_step calls them).
Image and audio functions are called through their domain modules (`torchmetrics.functional.image`, `.audio`),
as the 1.9 docs show them (the top-level aliases are deprecated wrappers).
"""

import torch
import torchmetrics
import torchmetrics.functional as TF

N, C = 16, 5


def _cls():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(N, C, generator=g)
    target = torch.randint(0, C, (N,), generator=g)
    return logits, target


def _reg():
    g = torch.Generator().manual_seed(0)
    return torch.randn(N, generator=g), torch.randn(N, generator=g)


def _img():
    g = torch.Generator().manual_seed(0)
    return torch.rand(2, 3, 32, 32, generator=g), torch.rand(2, 3, 32, 32, generator=g)


def _audio():
    g = torch.Generator().manual_seed(0)
    return torch.randn(2, 800, generator=g), torch.randn(2, 800, generator=g)


FUNCTIONAL = {
    # name: (callable(preds, target), inputs)
    "accuracy": (lambda p, t: TF.accuracy(p, t, task="multiclass", num_classes=C), _cls),
    "f1_score": (lambda p, t: TF.f1_score(p, t, task="multiclass", num_classes=C, average="macro"), _cls),
    "auroc": (lambda p, t: TF.auroc(p.softmax(-1), t, task="multiclass", num_classes=C), _cls),
    "confusion_matrix": (lambda p, t: TF.confusion_matrix(p, t, task="multiclass", num_classes=C), _cls),
    "calibration_error": (lambda p, t: TF.calibration_error(p.softmax(-1), t, task="multiclass", num_classes=C), _cls),
    "mean_squared_error": (TF.mean_squared_error, _reg),
    "r2_score": (TF.r2_score, _reg),
    "pearson_corrcoef": (TF.pearson_corrcoef, _reg),
    "spearman_corrcoef": (TF.spearman_corrcoef, _reg),
    "ssim": (lambda p, t: TF.image.structural_similarity_index_measure(p, t, data_range=1.0), _img),
    "psnr": (lambda p, t: TF.image.peak_signal_noise_ratio(p, t, data_range=1.0), _img),
    "si_sdr": (TF.audio.scale_invariant_signal_distortion_ratio, _audio),
    "snr": (TF.audio.signal_noise_ratio, _audio),
}

# Differentiable metrics users turn into losses.
LOSSES = {
    "ssim": (lambda p, t: 1 - TF.image.structural_similarity_index_measure(p, t, data_range=1.0), _img),
    "ms_ssim": (lambda p, t: 1 - TF.image.multiscale_structural_similarity_index_measure(
        p, t, data_range=1.0, kernel_size=3, betas=(0.5, 0.5)), _img),
    "si_sdr": (lambda p, t: -TF.audio.scale_invariant_signal_distortion_ratio(p, t).mean(), _audio),
    "pearson": (lambda p, t: 1 - TF.pearson_corrcoef(p, t), _reg),
    "total_variation": (lambda p, t: TF.image.total_variation(p) + TF.mean_squared_error(p, t), _img),
}


def case_functional(name="accuracy"):
    fn, inputs = FUNCTIONAL[name]
    return {"model": fn, "args": inputs()}


def case_metric_loss(name="ssim"):
    fn, inputs = LOSSES[name]
    preds, target = inputs()
    preds.requires_grad_(True)
    return {"model": fn, "args": (preds, target), "loss": lambda value: value}


MODULES = {
    "multiclass_accuracy": (lambda: torchmetrics.classification.MulticlassAccuracy(num_classes=C), _cls),
    "multiclass_f1": (lambda: torchmetrics.classification.MulticlassF1Score(num_classes=C), _cls),
    "multiclass_auroc": (lambda: torchmetrics.classification.MulticlassAUROC(num_classes=C), _cls),
    "mse": (lambda: torchmetrics.MeanSquaredError(), _reg),
    "pearson": (lambda: torchmetrics.PearsonCorrCoef(), _reg),
    "ssim": (lambda: torchmetrics.image.StructuralSimilarityIndexMeasure(data_range=1.0), _img),
    "mean": (lambda: torchmetrics.MeanMetric(), _reg),
    "collection": (lambda: torchmetrics.MetricCollection(
        [torchmetrics.classification.MulticlassAccuracy(num_classes=C),
         torchmetrics.classification.MulticlassPrecision(num_classes=C)]), _cls),
}


def case_metric_module(name="multiclass_accuracy"):
    make, inputs = MODULES[name]
    metric = make()
    preds, target = inputs()
    if name == "mean":
        return {"model": metric, "args": (preds,)}
    return {"model": metric, "args": (preds, target)}
