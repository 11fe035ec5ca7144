"""rules/data/tensor_method_breaks.toml (scripts/torch_data/gen_tensor_method_breaks.py) checked
against the installed torch: re-measured in a fresh interpreter, the generator finds exactly the
table's entries for this torch with the same break types — so a method torch starts (or stops)
tracing fails this test until the table is regenerated.
"""

from __future__ import annotations

import torch  # noqa: F401 - without torch these checks must fail to import, never skip

from test_generated_tables import remeasured, require_generated, table


def test_tensor_method_breaks_are_remeasured_here():
    require_generated("tensor_method_breaks")
    _, entries = table("tensor_method_breaks")
    # The methods BR035's doc and corpus name hold on every generated torch.
    assert {"backward", "requires_grad_", "storage_offset", "is_inference"} <= set(entries)
    measured = remeasured("tensor_method_breaks")
    assert {n: f["gb_type"] for n, f in measured.items()} == {
        n: f["gb_type"] for n, f in entries.items()
    }


def test_methods_dynamo_traces_are_not_entries():
    """Ordinary tensor methods compile: the generator does not call everything a break."""
    _, entries = table("tensor_method_breaks")
    assert not {"detach", "clone", "sum", "contiguous", "float", "abs"} & set(entries)
