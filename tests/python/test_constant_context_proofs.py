"""Runtime proofs for BR039 (constant-context-manager): a `with` over a constant in traced code
is refused by Dynamo; a real context manager (also one rebound from a placeholder) is not.

Each corpus case runs under real torch.compile (CPU, backend="eager", fullgraph=True) on the
installed torch.
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
from conftest import fullgraph_error, load_corpus


def corpus_cases(name: str) -> dict:
    return load_corpus("BR039", name, "constant_context").cases()


@pytest.mark.parametrize("case", list(corpus_cases("positive")))
def test_br039_positive_constant_context_is_refused(case):
    fn, args = corpus_cases("positive")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, (case, exc)
    assert "Unsupported context manager" in str(exc), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative")))
def test_br039_negative_compiles_whole(case):
    fn, args = corpus_cases("negative")[case]
    assert fullgraph_error(fn, args) is None, case
