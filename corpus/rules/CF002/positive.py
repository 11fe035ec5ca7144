"""CF002 positives: torch.compile guarded by a condition that is False under the declared defaults.

Why: with the shipped defaults, switching compile on changes nothing. The first case reproduces the
investigation: `compile=True` was a silent no-op because the gate also required
`not train_config.multi_scale` and the pydantic config declared `multi_scale: bool = True`.
"""

import logging

import torch

from .config import ModelConfig, RunConfig, TrainConfig

logger = logging.getLogger(__name__)


def build_model(model, model_config: ModelConfig, train_config: TrainConfig):
    compile_enabled = (
        model_config.compile and torch.cuda.device_count() <= 1 and not train_config.multi_scale
    )
    if compile_enabled:
        model = torch.compile(model)  # expect: CF002
    else:
        logger.info("torch.compile disabled")
    return model


def build_with_ema(model, model_config: ModelConfig, train_config: TrainConfig):
    if model_config.compile and train_config.ema:
        return torch.compile(model)  # expect: CF002
    return model


def run(model, cfg: RunConfig):
    # `debug` is inherited from BaseRunConfig (defaults True); the compile call is in the else.
    if not cfg.use_compile or cfg.debug:
        return model
    else:
        return torch.compile(model, mode="reduce-overhead")  # expect: CF002


def cases():
    """name -> (build function, args with compile switched on and all other fields at defaults,
    args that open the gate)."""
    net = torch.nn.Linear(4, 4)
    return {
        "pydantic_multi_scale": (
            build_model,
            (net, ModelConfig(compile=True), TrainConfig()),
            (net, ModelConfig(compile=True), TrainConfig(multi_scale=False)),
        ),
        "pydantic_field_default": (
            build_with_ema,
            (net, ModelConfig(compile=True), TrainConfig()),
            (net, ModelConfig(compile=True), TrainConfig(ema=True)),
        ),
        "dataclass_inherited_else": (
            run,
            (net, RunConfig(use_compile=True)),
            (net, RunConfig(use_compile=True, debug=False)),
        ),
    }
