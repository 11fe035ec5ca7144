"""Runtime proofs for BR034 (class-assignment-in-region): a `__class__` store in traced code is
refused by Dynamo; a read, or a store outside the compiled code, is not.

Each corpus case runs under real torch.compile (CPU, backend="eager", fullgraph=True). Torch 2.11's
registry names the types (GB4271 on an object, GB0058 on a tensor); older torch was not measured.
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
from conftest import fullgraph_error, load_corpus

TYPES = ("__class__ assignment on user-defined object", "Failed to set tensor attribute")


def corpus_cases(name: str) -> dict:
    return load_corpus("BR034", name, "class_assignment").cases()


@pytest.mark.parametrize("case", list(corpus_cases("positive")))
def test_br034_positive_class_store_is_refused(case):
    fn, args = corpus_cases("positive")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, (case, exc)
    assert any(gb_type in str(exc) for gb_type in TYPES), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative")))
def test_br034_negative_compiles_whole(case):
    fn, args = corpus_cases("negative")[case]
    assert fullgraph_error(fn, args) is None, case
