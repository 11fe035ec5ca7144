"""Runtime proofs for BR037 (untraceable-builtin-call): a builtin Dynamo has no handler for,
called in traced code, is a graph break; a shadowing name, an eager call and the builtins Dynamo
handles are not.

Each corpus case runs under real torch.compile (CPU, backend="eager", fullgraph=True) on the
installed torch; rules/data/builtin_breaks.toml holds 2.2 to 2.11 (tests/python/
test_builtin_breaks_table.py re-measures it).
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
from conftest import fullgraph_error, load_corpus


def corpus_cases(name: str) -> dict:
    return load_corpus("BR037", name, "builtin_call").cases()


@pytest.mark.parametrize("case", list(corpus_cases("positive")))
def test_br037_positive_builtin_call_breaks(case):
    fn, args = corpus_cases("positive")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, (case, exc)
    if tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 8):
        assert "Failed to trace builtin operator" in str(exc), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative")))
def test_br037_negative_compiles_whole(case):
    fn, args = corpus_cases("negative")[case]
    assert fullgraph_error(fn, args) is None, case
