"""rules/data/builtin_breaks.toml (scripts/torch_data/gen_builtin_breaks.py) checked against the
installed torch: re-measured in a fresh interpreter, the generator finds exactly the table's
entries for this torch with the same break types — so a builtin Dynamo starts (or stops) handling
fails this test until the table is regenerated.
"""

from __future__ import annotations

import torch  # noqa: F401 - without torch these checks must fail to import, never skip

from test_generated_tables import remeasured, require_generated, table


def test_builtin_breaks_are_remeasured_here():
    require_generated("builtin_breaks")
    _, entries = table("builtin_breaks")
    # The builtins BR037's doc and corpus name hold on every generated torch.
    assert {"eval", "exec", "compile", "globals", "locals", "hash", "hex", "open"} <= set(entries)
    measured = remeasured("builtin_breaks")
    assert {n: f["gb_type"] for n, f in measured.items()} == {
        n: f["gb_type"] for n, f in entries.items()
    }


def test_builtins_dynamo_handles_are_not_entries():
    """Ordinary builtins compile: the generator does not call everything a break."""
    _, entries = table("builtin_breaks")
    assert not {"len", "isinstance", "getattr", "sorted", "min", "max", "range", "zip"} & set(
        entries
    )
