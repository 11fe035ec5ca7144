"""Runtime proofs for BR036 (grad-tensor-created-in-region): a torch call returning a tensor with
requires_grad=True breaks the graph under real Dynamo; requires_grad=False, a leaf built outside
the compiled code, and a `requires_grad` keyword of a user function do not.

CPU, backend="eager", fullgraph=True. The break's type is torch 2.11's registry entry; torch 2.2 to
2.8 word it "factory functions that return tensors that require grad are not supported" (measured
with those torches when the rule was written; CI has 2.11 only).
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
from conftest import fullgraph_error, load_corpus

TYPES = (
    "Attempted to use tensor creation function with requires_grad=True",
    "factory functions that return tensors that require grad are not supported",
)


def corpus_cases(name: str) -> dict:
    return load_corpus("BR036", name, "grad_tensor_created").cases()


@pytest.mark.parametrize("case", list(corpus_cases("positive")))
def test_br036_positive_breaks(case):
    fn, args = corpus_cases("positive")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, (case, exc)
    assert any(gb_type in str(exc) for gb_type in TYPES), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative")))
def test_br036_negative_compiles_whole(case):
    fn, args = corpus_cases("negative")[case]
    assert fullgraph_error(fn, args) is None, case
