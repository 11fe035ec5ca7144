"""BR035 positives: Tensor methods Dynamo does not trace, called in traced code.

Why: measured on torch 2.2, 2.5, 2.8 and 2.11 (backend="eager", fullgraph=True; the table
rules/data/tensor_method_breaks.toml): each call raises Dynamo's graph-break exception, on a tensor
the function received and on one it computed. Torch 2.11: `backward` GB0123 "Unsupported
Tensor.backward() call", `requires_grad_` GB0125, `storage_offset` / `is_inference` / `is_conj`
"torch.* op returned non-Tensor" (GB0208) or their own types.
"""

import torch
import torch.nn.functional as F
from torch import nn


@torch.compile(backend="eager")
def train_step(model, batch, target):
    loss = F.mse_loss(model(batch), target)
    loss.backward()  # expect: BR035
    return loss


class Leaf(nn.Module):
    def forward(self, x):
        y = x * 2
        y.requires_grad_()  # expect: BR035
        return y + 1


class Strided(nn.Module):
    def forward(self, x):
        offset = x.storage_offset()  # expect: BR035
        return x + offset


@torch.compile(backend="eager")
def inference_probe(x: torch.Tensor):
    if x.is_inference():  # expect: BR035
        return x + 1
    return x - 1


def cases():
    """name -> (callable, args)."""
    model = nn.Linear(4, 2)
    return {
        "backward": (train_step.__wrapped__, (model, torch.randn(3, 4), torch.randn(3, 2))),
        "requires_grad_": (Leaf(), (torch.randn(4),)),
        "storage_offset": (Strided(), (torch.randn(4),)),
        "is_inference": (inference_probe.__wrapped__, (torch.randn(4),)),
    }
