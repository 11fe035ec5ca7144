"""CF002 negatives: gates that are open under the defaults, or decided by unknowns."""

import os

import torch

from .config import ModelConfig, RunConfig, TrainConfig


def build_on_device(model, model_config: ModelConfig):
    # Unknowns (devices, environment) never make a gate dead.
    if model_config.compile and torch.cuda.is_available() and os.environ.get("NO_COMPILE") is None:
        return torch.compile(model)
    return model


def build_amp(model, cfg: RunConfig):
    # `amp` defaults to False, but it is an alternative (`or`), not a requirement.
    if cfg.use_compile or cfg.amp:
        return torch.compile(model)
    return model


def build_fixed_scale(model, model_config: ModelConfig):
    # The local config overrides the class default.
    train_config = TrainConfig(multi_scale=False)
    if model_config.compile and not train_config.multi_scale:
        return torch.compile(model)
    return model


def build_untyped(model, model_config, train_config):
    # No annotation: the fields' classes are unknown.
    if model_config.compile and not train_config.multi_scale:
        return torch.compile(model)
    return model


def cases():
    net = torch.nn.Linear(4, 4)
    return {
        "unknown_device_and_env": (build_on_device, (net, ModelConfig(compile=True))),
        "or_alternative": (build_amp, (net, RunConfig(use_compile=True))),
        "local_override": (build_fixed_scale, (net, ModelConfig(compile=True))),
    }
