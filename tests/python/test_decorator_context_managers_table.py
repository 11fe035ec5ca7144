"""rules/data/decorator_context_managers.toml (scripts/torch_data/gen_decorator_context_managers.py)
checked against the installed torch: re-measured in a fresh interpreter, the generator finds
exactly the table's entries for this torch — so a context manager whose decorator form Dynamo
stops tracing through fails this test until the table is regenerated.
"""

from __future__ import annotations

import torch  # noqa: F401 - without torch these checks must fail to import, never skip

from test_generated_tables import remeasured, require_generated, table


def test_decorator_context_managers_are_remeasured_here():
    require_generated("decorator_context_managers")
    _, entries = table("decorator_context_managers")
    # The grad modes BR010's corpus names hold on every generated torch.
    assert {"torch.no_grad", "torch.enable_grad", "torch.inference_mode"} <= set(entries)
    assert set(remeasured("decorator_context_managers")) == set(entries)


def test_a_decorator_that_breaks_on_its_own_wrapper_is_not_an_entry():
    """`torch.set_grad_enabled(False)(fn)` calls its own `clone` first, which Dynamo skips (torch
    2.11: GB0007 naming `set_grad_enabled.clone`): the call breaks before `fn` runs, so the
    table cannot say `fn` is what breaks there."""
    _, entries = table("decorator_context_managers")
    assert "torch.set_grad_enabled" not in entries
