"""rules/data/int_parameters.toml (scripts/torch_data/gen_int_parameters.py) checked against the
installed torch: regenerated in a fresh interpreter from the aten schemas and re-measured under
Dynamo, it equals the table's entries for this torch; the parameters BR005 relies on are where
torch takes ints; and the measured break of representative spellings is re-measured here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import torch._dynamo

from test_generated_tables import remeasured, require_generated, table

from torch_data import gen_int_parameters, int_parameter_breaks  # noqa: E402 - on sys.path via test_generated_tables

OUTCOMES = {"none", "unmeasured", "breaks"}


def registry_codes() -> set[str]:
    path = Path(torch._dynamo.__file__).parent / "graph_break_registry.json"
    return set(json.loads(path.read_text())) if path.exists() else set()


def test_int_parameters_are_regenerated_here():
    """The whole table, schemas and Dynamo measurement, from a fresh interpreter (minutes)."""
    require_generated("int_parameters")
    _, entries = table("int_parameters")
    assert remeasured("int_parameters") == entries


def test_every_parameter_has_one_measured_outcome():
    require_generated("int_parameters")
    _, entries = table("int_parameters")
    codes = registry_codes()
    for spelling, fields in entries.items():
        assert len(fields["breaks"]) == len(fields["params"]), spelling
        for outcome in fields["breaks"]:
            assert outcome in OUTCOMES or outcome in codes, (spelling, outcome)


def schemas_of(spelling: str) -> list:
    found = []
    for op in gen_int_parameters.op_names():
        try:
            if spelling in gen_int_parameters.gen_op_tags.spellings(op):
                found.extend(gen_int_parameters.overload_schemas(op))
        except Exception:  # noqa: BLE001, S112 - the generator skips these ops too
            continue
    return found


@pytest.mark.parametrize(
    "spelling, param",
    [
        ("torch.zeros", "size"),
        ("Tensor.view", "size"),
        ("Tensor.new_zeros", "size"),
        ("Tensor.topk", "k"),
        ("torch.nn.functional.pad", "pad"),
        ("torch.roll", "shifts"),
    ],
)
def test_representative_parameters_break_as_measured(spelling, param):
    """Re-measured here: a data-dependent 0-d tensor in the parameter breaks with the table's
    code (GB0033 "Data dependent operator" on torch 2.8 and 2.11), and a Python int does not."""
    require_generated("int_parameters")
    _, entries = table("int_parameters")
    fields = entries[spelling]
    recorded = fields["breaks"][fields["params"].index(param)]
    by_type = int_parameter_breaks._registry()
    assert int_parameter_breaks.measure(spelling, schemas_of(spelling), param, by_type) == recorded
    assert recorded not in ("none", "unmeasured"), recorded
    if by_type is not None:
        assert recorded == "GB0033", recorded


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


def test_unmeasured_convolution_parameter_breaks_the_same_way():
    """No generic call is built for a convolution (matched shapes): `unmeasured` in the table.
    BR005 keeps flagging such parameters; a hand-built call shows the same break."""
    import warnings

    from torch._dynamo.utils import counters
    from torch.nn import functional as F

    _, entries = table("int_parameters")
    fields = entries["torch.nn.functional.conv_transpose2d"]
    assert "stride" in fields["params"]

    def strided(x, w, marks):
        return F.conv_transpose2d(x * 2, w, stride=(marks > 0).sum())

    torch._dynamo.reset()
    counters.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.compile(strided, backend="eager")(
            torch.randn(1, 2, 4, 4), torch.randn(2, 2, 3, 3), torch.ones(2)
        )
    reasons = [r.splitlines()[0] for r in counters["graph_break"]]
    torch._dynamo.reset()
    assert reasons and all(r.startswith("Data dependent operator") for r in reasons), reasons
