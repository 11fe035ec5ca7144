"""rules/data/tensor_attribute_stores.toml (scripts/torch_data/gen_tensor_attribute_stores.py)
checked against the installed torch, and BR042's corpus under real Dynamo.

Re-measured in a fresh interpreter, the generator finds exactly the table's entries for this
torch. Each positive breaks under `fullgraph=True`; each negative compiles whole.
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these checks must fail to import, never skip
from conftest import fullgraph_error, load_corpus
from test_generated_tables import remeasured, require_generated, table


def test_tensor_attribute_stores_are_remeasured_here():
    require_generated("tensor_attribute_stores")
    _, entries = table("tensor_attribute_stores")
    assert "Tensor.requires_grad" in entries
    # `.data` is refused only on a computed tensor (BR033's): not an entry.
    assert "Tensor.data" not in entries
    assert remeasured("tensor_attribute_stores") == entries


def corpus(name: str):
    return load_corpus("BR042", name, "tensor_attribute_stores")


@pytest.mark.parametrize("case", list(corpus("positive").cases()))
def test_br042_positive_breaks(case):
    module, args = corpus("positive").cases()[case]
    error = fullgraph_error(module, args)
    assert error is not None and "Unsupported" in type(error).__name__, (case, error)
    assert "setattr" in str(error) or "requires_grad" in str(error), str(error)[:300]


@pytest.mark.parametrize("case", list(corpus("negative").cases()))
def test_br042_negative_compiles_whole(case):
    module, args = corpus("negative").cases()[case]
    assert fullgraph_error(module, args) is None
