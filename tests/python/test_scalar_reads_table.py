"""rules/data/scalar_reads.toml (scripts/torch_data/gen_scalar_reads.py) checked against the
installed torch, and SY002's fullgraph corpus under real Dynamo.

Re-measured in a fresh interpreter, the generator finds exactly the table's entries for this
torch. SY002/fullgraph_roots.py compiles `.item()` with `fullgraph=True`: the compile raises where
the table says "raises" and compiles whole where it says "traced".
"""

from __future__ import annotations

import torch  # noqa: F401 - without torch these checks must fail to import, never skip
from conftest import fullgraph_error, load_corpus
from test_generated_tables import remeasured, require_generated, table


def test_scalar_reads_are_remeasured_here():
    require_generated("scalar_reads")
    _, entries = table("scalar_reads")
    assert set(entries) == {"Tensor.item", "Tensor.tolist", "float", "int", "bool"}
    # Every read breaks the graph by default, on every torch.
    assert all(fields["default"] == "breaks" for fields in entries.values())
    assert remeasured("scalar_reads") == entries


def test_sy002_fullgraph_corpus_matches_the_table():
    _, entries = table("scalar_reads")
    corpus = load_corpus("SY002", "fullgraph_roots")
    cases = corpus.cases()
    assert cases, "SY002/fullgraph_roots.py declares cases"
    for case, (module, args) in cases.items():
        error = fullgraph_error(module, args)
        if entries["Tensor.item"]["fullgraph"] == "traced":
            assert error is None, (case, error)
        else:
            assert error is not None and "Unsupported" in type(error).__name__, (case, error)
