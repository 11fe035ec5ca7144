"""rules/data/crossing_context_managers.toml (scripts/torch_data/gen_crossing_context_managers.py)
checked against the installed torch, and CR003's corpus run under real Dynamo.

Re-measured in a fresh interpreter, the generator finds exactly the table's entries and outcomes
for this torch. The corpus: each positive's compiled call ends in a grad mode other than eager's
(torch 2.5+) or raises TypeError (torch 2.2); each negative's ends where eager's does.
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these checks must fail to import, never skip
import torch._dynamo
from conftest import load_corpus, torch_version
from test_generated_tables import remeasured, require_generated, table

TORCH_VERSION = torch_version()


def test_crossing_context_managers_are_remeasured_here():
    require_generated("crossing_context_managers")
    _, entries = table("crossing_context_managers")
    # The grad modes CR003's corpus uses hold on every generated torch.
    assert {"torch.no_grad", "torch.enable_grad"} <= set(entries)
    assert remeasured("crossing_context_managers") == entries


def test_autocast_crosses_a_break_cleanly_from_torch_2_5():
    """The contrast that makes the table a measurement, not a list of context managers: from 2.5
    on, `torch.autocast` built before a break and entered after it is carried over cleanly."""
    _, entries = table("crossing_context_managers")
    assert ("torch.autocast" in entries) == (TORCH_VERSION < (2, 5))


def corpus(name: str):
    return load_corpus("CR003", name, "crossing_context_managers")


def run(fn, args, grad: bool, compiled: bool):
    """The grad mode after one call started in `grad` (restored afterwards)."""
    torch._dynamo.reset()
    torch.set_grad_enabled(grad)
    try:
        (torch.compile(fn, backend="eager") if compiled else fn)(*args)
        return torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
        torch._dynamo.reset()


@pytest.mark.parametrize("case", list(corpus("positive").cases()))
def test_cr003_positive_compiled_call_leaves_grad_mode_or_raises(case):
    fn, args, grad = corpus("positive").cases()[case]
    eager = run(fn, args, grad, compiled=False)
    assert eager == grad, case
    if TORCH_VERSION < (2, 5):
        with pytest.raises(TypeError, match="context manager protocol"):
            run(fn, args, grad, compiled=True)
        return
    assert run(fn, args, grad, compiled=True) != eager, case


@pytest.mark.parametrize("case", list(corpus("negative").cases()))
def test_cr003_negative_compiled_call_restores_grad_mode(case):
    fn, args, grad = corpus("negative").cases()[case]
    assert run(fn, args, grad, compiled=True) == run(fn, args, grad, compiled=False) == grad
