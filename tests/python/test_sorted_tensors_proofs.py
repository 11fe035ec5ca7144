"""Runtime proofs for BR038 (sorted-tensors-in-region): sorting a list of tensors built in traced
code is a graph break; a Python key, ints, min/max and torch's own sort are not.

Each corpus case runs under real torch.compile (CPU, backend="eager", fullgraph=True) on the
installed torch.
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
from conftest import fullgraph_error, load_corpus


def corpus_cases(name: str) -> dict:
    return load_corpus("BR038", name, "sorted_tensors").cases()


@pytest.mark.parametrize("case", list(corpus_cases("positive")))
def test_br038_positive_sorting_tensors_breaks(case):
    fn, args = corpus_cases("positive")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, (case, exc)
    assert "sort with non-constant keys" in str(exc), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative")))
def test_br038_negative_compiles_whole(case):
    fn, args = corpus_cases("negative")[case]
    assert fullgraph_error(fn, args) is None, case
