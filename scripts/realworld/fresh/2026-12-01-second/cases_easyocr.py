"""easyocr 1.7.2 networks as `graphbreak check` cases (random weights; no weight download).

`easyocr.Reader` runs a text detector (CRAFT by default, or DBNet) and a recognizer (the `generation1`
ResNet-BiLSTM or `generation2` VGG-BiLSTM CTC model); users who compile or fine-tune compile those networks.
The cases build them as the Reader does (`get_detector`'s CRAFT(), `get_recognizer`'s Model(num_class, **network_params)
with the Reader's own network_params; DBNet's SegDetectorModel with a non-deformable ResNet-18 backbone — the
deformable one needs the compiled DCN extension) and call them as `test_net` / `recognizer_predict` do.
Training steps follow the library's trainer: CTC loss on the recognizer's per-column logits, CRAFT's
region/affinity MSE, DBNet's own criterion (L1BalanceCELoss) inside SegDetectorModel(batch, training=True).
Images are small (64x64 for the detectors, 64x128 grey text lines; 32x64 for the wider generation1 net) so CPU runs are quick.
"""

import torch
import torch.nn.functional as F
from easyocr.craft import CRAFT
from easyocr.model import model as gen1
from easyocr.model import vgg_model as gen2

NUM_CLASS = 97  # English character set + CTC blank, as the Reader builds for ["en"]
PARAMS = {
    "generation1": dict(input_channel=1, output_channel=512, hidden_size=512),
    "generation2": dict(input_channel=1, output_channel=256, hidden_size=256),
}


def case_craft(train=False):
    torch.manual_seed(0)
    net = CRAFT()
    x = torch.randn(1, 3, 64, 64)
    case = {"model": net, "args": (x,)}
    if train:
        region = torch.rand(1, 32, 32)
        affinity = torch.rand(1, 32, 32)
        case["loss"] = lambda out: F.mse_loss(out[0][..., 0], region) + F.mse_loss(out[0][..., 1], affinity)
    return case


def case_recognizer(network="generation2", train=False):
    torch.manual_seed(0)
    pkg = gen1 if network == "generation1" else gen2
    model = pkg.Model(num_class=NUM_CLASS, **PARAMS[network])
    batch, max_len = 2, 10
    image = torch.randn(batch, 1, 32, 64) if network == "generation1" else torch.randn(batch, 1, 64, 128)
    text = torch.zeros(batch, max_len + 1, dtype=torch.long)  # recognizer_predict's text_for_pred
    case = {"model": model, "args": (image, text)}
    if train:
        targets = torch.randint(1, NUM_CLASS, (batch, 6))
        target_lengths = torch.full((batch,), 6, dtype=torch.long)

        def ctc(preds):
            log_probs = preds.log_softmax(2).permute(1, 0, 2)
            input_lengths = torch.full((batch,), preds.size(1), dtype=torch.long)
            return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, zero_infinity=True)

        case["loss"] = ctc
    return case


class _RecognizeStep(torch.nn.Module):
    """recognizer_predict's tensor part: logits, softmax, ignore-index masking and renormalisation, greedy argmax."""

    def __init__(self, model, ignore_idx):
        super().__init__()
        self.model = model
        self.register_buffer("ignore", torch.tensor(ignore_idx, dtype=torch.long))

    def forward(self, image, text):
        preds = self.model(image, text)
        prob = F.softmax(preds, dim=2)
        prob = prob.index_fill(2, self.ignore, 0.0)
        prob = prob / prob.sum(dim=2, keepdim=True)
        return prob.argmax(2), prob.max(2).values


def case_recognize_step():
    torch.manual_seed(0)
    model = gen2.Model(num_class=NUM_CLASS, **PARAMS["generation2"])
    image = torch.randn(2, 1, 64, 128)
    text = torch.zeros(2, 11, dtype=torch.long)
    return {"model": _RecognizeStep(model, [5, 9]), "args": (image, text)}


def _dbnet():
    from easyocr.DBNet.model.model import SegDetectorModel

    torch.manual_seed(0)
    args = {
        "backbone": "resnet18",
        "backbone_args": {"pretrained": False},
        "decoder": "SegDetector",
        "decoder_args": {"adaptive": True, "in_channels": [64, 128, 256, 512], "k": 50},
        "loss_class": "L1BalanceCELoss",
    }
    return SegDetectorModel(args, torch.device("cpu"))


def case_dbnet(train=False):
    model = _dbnet()
    image = torch.randn(2, 3, 64, 64)
    if not train:
        return {"model": model, "args": (image,), "kwargs": {"training": False}}
    g = torch.Generator().manual_seed(0)
    batch = {
        "image": image,
        "gt": (torch.rand(2, 1, 64, 64, generator=g) > 0.7).float(),
        "mask": torch.ones(2, 64, 64),
        "thresh_map": torch.rand(2, 64, 64, generator=g),
        "thresh_mask": torch.ones(2, 64, 64),
    }
    return {"model": model, "args": (batch,), "kwargs": {"training": True}, "loss": lambda out: out[0]}
