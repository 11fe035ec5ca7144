"""rules/data/int_parameters.toml (scripts/torch_data/gen_int_parameters.py) checked against the
installed torch: regenerated in a fresh interpreter from the aten schemas, it equals the table's
entries for this torch; and the parameters BR005 relies on are where torch takes ints.
"""

from __future__ import annotations

import torch

from test_generated_tables import remeasured, require_generated, table


def test_int_parameters_are_regenerated_here():
    require_generated("int_parameters")
    _, entries = table("int_parameters")
    assert remeasured("int_parameters") == entries


def test_sizes_counts_and_pads_are_int_parameters():
    _, entries = table("int_parameters")
    assert entries["torch.zeros"]["params"] == ["size"] and entries["torch.zeros"]["varargs"]
    assert "size" in entries["Tensor.new_zeros"]["params"]
    assert "k" in entries["Tensor.topk"]["params"]
    assert "pad" in entries["torch.nn.functional.pad"]["params"]
    # A dtype prints as `int` in a schema but is a ScalarType: not an int parameter.
    assert "dtype" not in entries.get("Tensor.view", {}).get("params", [])
    # `narrow`'s start also takes a Tensor (an overload): only `length` and `dim` are ints.
    assert "start" not in entries["Tensor.narrow"]["params"]
    schema = torch.ops.aten.zeros.default._schema
    assert str(schema.arguments[0].real_type) == "List[int]"
