"""Runtime proofs for BR040 (tensor-tuple-comparison): comparing a tuple or list holding tensors element by element
in traced code breaks; ints, other lengths and kinds are not.

Each corpus case runs under real torch.compile (CPU, backend="eager", fullgraph=True) on the
installed torch.
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
from conftest import fullgraph_error, load_corpus


def corpus_cases(name: str) -> dict:
    return load_corpus("BR040", name, "tensor_tuple").cases()


@pytest.mark.parametrize("case", list(corpus_cases("positive")))
def test_br040_positive_tensor_tuple_comparison_breaks(case):
    fn, args = corpus_cases("positive")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, (case, exc)
    assert "Data-dependent branching" in str(exc), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative")))
def test_br040_negative_compiles_whole(case):
    fn, args = corpus_cases("negative")[case]
    assert fullgraph_error(fn, args) is None, case
