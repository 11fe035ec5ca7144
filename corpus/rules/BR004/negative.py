"""BR004 negatives: look-alikes Dynamo traces (torch 2.11, measured), and side effects kept out of
the traced path. (numpy functions on arrays are traced through torch._numpy too: not flagged.)"""

import logging
import random

import torch
from torch import nn

logger = logging.getLogger(__name__)


class RandomScale(nn.Module):
    def forward(self, x):
        # random.randint / random.uniform are traced (no break on 2.2 or 2.11).
        return x * random.uniform(0.5, 1.5) + random.randint(0, 3)


class EagerOnlyLogging(nn.Module):
    def forward(self, x):
        if not torch.compiler.is_compiling():
            logger.info("eager call")
            print(x.shape)
        return x + 1


class TensorLog(nn.Module):
    def forward(self, x):
        # Tensor methods that share a logging method's name are not logger calls.
        return x.abs().log() + torch.log1p(x.abs())


def report(x: torch.Tensor) -> None:
    # Never called from a compiled region.
    print(x)
    logger.warning("eager only")


def cases():
    x = torch.randn(4, 8)
    return {
        "random_uniform_randint": (RandomScale(), (x,)),
        "eager_only_logging": (EagerOnlyLogging(), (x,)),
        "tensor_log": (TensorLog(), (x,)),
    }
