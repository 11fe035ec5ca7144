"""A project that declares no torch floor (tests/installed_torch_floor.rs).

Dynamo marks `threading.Lock` as skipped from torch 2.5 on (rules/data/skipped_library_functions.toml,
measured on 2.2, 2.5, 2.8 and 2.11; torch 2.2 breaks on it for another reason, which the table does
not record, so no claim reaches below 2.5). With no floor declared, the torch installed in the
environment scan is given (`--python-env`, or the active `$VIRTUAL_ENV`) is the oldest this project
runs on: the break is reported when that torch is 2.5 or newer, and not without an environment or
with an older one. `copy.copy` is skipped on every torch and always reported.
"""

import copy
from threading import Lock

import torch


@torch.compile(backend="eager")
def step(x, state):
    guard = Lock()  # noqa: F841 (built, never entered: entering it would be a second break)
    state = copy.copy(state)
    return x + 1, state
