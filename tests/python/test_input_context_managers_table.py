"""rules/data/input_context_managers.toml (scripts/torch_data/gen_input_context_managers.py)
checked against the installed torch: re-measured in a fresh interpreter, the generator finds
exactly the table's entries for this torch with the same refusals — so a context manager Dynamo
starts (or stops) accepting as a frame input fails this test until the table is regenerated.
"""

from __future__ import annotations

import torch  # noqa: F401 - without torch these checks must fail to import, never skip

from test_generated_tables import remeasured, require_generated, table


def test_input_context_managers_are_remeasured_here():
    require_generated("input_context_managers")
    _, entries = table("input_context_managers")
    # The classes BR030's doc and corpus name hold on every generated torch.
    assert {"torch.no_grad", "torch.enable_grad", "torch.set_grad_enabled"} <= set(entries)
    measured = remeasured("input_context_managers")
    assert {n: f["gb_type"] for n, f in measured.items()} == {
        n: f["gb_type"] for n, f in entries.items()
    }


def test_context_managers_dynamo_accepts_as_inputs_are_not_entries():
    """`torch.autocast` passed in is entered (measured in corpus/rules/BR030/negative.py): the
    generator does not call every context manager a refusal."""
    _, entries = table("input_context_managers")
    assert not {"torch.autocast", "torch.amp.autocast"} & set(entries)
