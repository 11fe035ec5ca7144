"""BR004 negatives: look-alikes Dynamo traces (torch 2.11, measured), and side effects kept out of
the traced path. (numpy functions on arrays are traced through torch._numpy too: not flagged.)"""

import logging
import random
import warnings

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


def deprecate(name: str, removed_in: str, message: str) -> None:
    """A project deprecation helper (diffusers.utils.deprecate): its callers' branches are misuse."""
    warnings.warn(f"`{name}` is deprecated and will be removed in {removed_in}. {message}", FutureWarning)


class FluxLikeEmbed(nn.Module):
    """Misuse branches: the warning says the input is deprecated or will be ignored, so the
    library's own callers (which pass 2-D ids and no stray kwargs) never take them."""

    def forward(self, x, txt_ids, **attention_kwargs):
        if txt_ids.ndim == 3:
            logger.warning(
                "Passing `txt_ids` 3d torch.Tensor is deprecated."
                "Please remove the batch dimension and pass it as a 2d torch Tensor"
            )
            txt_ids = txt_ids[0]
        unused_kwargs = [k for k in attention_kwargs if k not in {"mask"}]
        if len(unused_kwargs) > 0:
            logger.warning(
                f"attention_kwargs {unused_kwargs} are not expected by {type(self).__name__} and will be ignored."
            )
        sizes = attention_kwargs.get("img_shapes", [(1, 4, 4)])
        if not all(size == sizes[0] for size in sizes):
            logger.warning("Batch inference with variable-sized images is not currently supported in this RoPE.")
        if attention_kwargs.get("scale", None) is not None:
            logger.warning("Passing `scale` to `cross_attention_kwargs` is deprecated. `scale` will be ignored.")
        return x + txt_ids.sum()


class LegacyScaleBlock(nn.Module):
    """A branch that calls the project's deprecation helper is a misuse branch too, and the helper
    (whose own `warnings.warn` would break) is not reached from the region through it."""

    def forward(self, x, *args, **kwargs):
        if len(args) > 0 or kwargs.get("scale", None) is not None:
            deprecate("scale", "1.0.0", "The `scale` argument is ignored.")
        elif kwargs.get("return_attentions", False):
            warnings.warn("`return_attentions` is deprecated and will be removed.", FutureWarning)
        return x * 2


def report(x: torch.Tensor) -> None:
    # Never called from a compiled region.
    print(x)
    logger.warning("eager only")


def halve_grad(grad):
    return grad / 2


@torch.compile
def locally_hooked(x):
    # A hook handle kept in a local: traced, no break (torch 2.5 to 2.11).
    handle = x.register_hook(halve_grad)
    return x * 2, handle is not None


def cases():
    x = torch.randn(4, 8)
    return {
        "local_hook_handle": (locally_hooked, (torch.randn(4, 8, requires_grad=True),)),
        "random_uniform_randint": (RandomScale(), (x,)),
        "eager_only_logging": (EagerOnlyLogging(), (x,)),
        "tensor_log": (TensorLog(), (x,)),
        "deprecated_input_branches": (FluxLikeEmbed(), (x, torch.zeros(3, 3))),
        "deprecation_helper_branch": (LegacyScaleBlock(), (x,)),
    }
