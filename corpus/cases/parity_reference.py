"""Parity when the model cannot run in float64 (a layer hard-codes float32), as in a two-stage detector
head: a float32 run with autocast off is the reference, and eager and compiled are judged against it by
the same ratio rule as against float64. The head selects its queries with top-k, so any numeric change
(bf16 vs float32, eager vs compiled) permutes them: eager itself is far from the reference per index. An
auxiliary head reaches an output but not the loss: eager leaves its gradients None, a compiled backward
fills them with zeros. Healthy cases must come out `ok`; a compiled path that computes something else must
still fail."""

import torch
from torch import nn

QUERIES = 256
SELECTED = 32
WIDTH = 64


class SelectingHead(nn.Module):
    """Scores queries, keeps the top-k, regresses their boxes; `scale` != 1 under compile only (a real
    numerical regression stand-in)."""

    def __init__(self, compiled_scale=1.0):
        super().__init__()
        self.embed = nn.Linear(WIDTH, WIDTH)
        self.score = nn.Linear(WIDTH, 1)
        self.box = nn.Linear(WIDTH, 4)
        self.aux = nn.Linear(WIDTH, 4)
        self.compiled_scale = compiled_scale
        with torch.no_grad():
            # Scores that nearly tie: their top-k order is decided by rounding.
            self.score.weight.mul_(0.01)

    def forward(self, queries):
        # Hard-coded float32: under a float64 run this matmul of float32 activations with float64
        # weights raises (no float64 reference); under bf16 autocast the linear still runs in bf16.
        hidden = torch.relu(self.embed(queries.float()))
        if torch.compiler.is_compiling() and self.compiled_scale != 1.0:
            hidden = hidden * self.compiled_scale  # LINE: compiled_differs
        # A pointwise chain: eager rounds to bf16 after each op, a fused kernel once at the end.
        scores = torch.sigmoid(self.score(hidden).squeeze(-1) * 3.0 + 0.5)
        top = torch.topk(scores, SELECTED, dim=1).indices
        chosen = torch.gather(hidden, 1, top.unsqueeze(-1).expand(-1, -1, hidden.shape[-1]))
        boxes = torch.sigmoid(self.box(chosen))
        return {"boxes": boxes, "scores": torch.gather(scores, 1, top), "aux": self.aux(hidden)}


def detection_loss(out):
    # The auxiliary output is not part of the loss.
    return out["boxes"].float().pow(2).mean() + out["scores"].float().mean()


def inputs():
    return (torch.randn(2, QUERIES, WIDTH),)


def case_float32_only_bf16_training():
    torch.manual_seed(0)
    return {"model": SelectingHead(), "args": inputs(), "loss": detection_loss, "dtype": "bfloat16"}


def case_float32_only_compiled_path_differs():
    torch.manual_seed(0)
    return {"model": SelectingHead(compiled_scale=1.5), "args": inputs(), "loss": detection_loss,
            "dtype": "bfloat16"}


def case_float32_only_fp32_training():
    """No autocast and float32 weights: float32 is eager's own precision, so eager is the only reference."""
    torch.manual_seed(0)
    return {"model": SelectingHead(), "args": inputs(), "loss": detection_loss}
