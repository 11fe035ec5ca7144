"""CF001 negatives: suppress_errors set to False, only read, other Dynamo settings, and an
unrelated object that happens to have a `suppress_errors` attribute. Nothing here may be reported."""

import logging

import torch
import torch._dynamo


class Settings:
    suppress_errors = False


def strict_compile(model, backend="inductor"):
    # Explicitly strict: failures surface as exceptions.
    torch._dynamo.config.suppress_errors = False
    torch._dynamo.config.cache_size_limit = 16
    return torch.compile(model, backend=backend)


def warn_if_lenient():
    # Reading the flag is fine.
    if torch._dynamo.config.suppress_errors:
        logging.warning("torch._dynamo.config.suppress_errors is on: compile failures run eagerly")


def run_strict(model, x, backend="inductor"):
    with torch._dynamo.config.patch(suppress_errors=False):
        return torch.compile(model, backend=backend)(x)


def configure_app(settings: Settings):
    # Not torch's config: an application setting with the same name.
    settings.suppress_errors = True
    return settings
