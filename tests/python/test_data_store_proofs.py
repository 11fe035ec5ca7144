"""Runtime proofs for BR033 (data-store-on-computed-tensor): `t.data = ...` on a tensor the
compiled frame computed is refused by Dynamo; on inputs, parameters and buffers it traces.

Each corpus case runs under real torch.compile (CPU, backend="eager", fullgraph=True). From torch
2.8 the registry's type is named ("Failed to mutate tensor data attribute", GB0056); torch 2.2 and
2.5 refuse the same `setattr(tensor, "data", ...)` call as an unsupported builtin call:
    /work/venvs/torch-2.5/bin/python -m pytest tests/python/test_data_store_proofs.py -q
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
from conftest import fullgraph_error, load_corpus, torch_version

TORCH_VERSION = torch_version()


def corpus_cases(name: str) -> dict:
    return load_corpus("BR033", name, "data_store").cases()



@pytest.mark.parametrize("case", list(corpus_cases("positive")))
def test_br033_positive_data_store_is_refused(case):
    fn, args = corpus_cases("positive")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, (case, exc)
    if TORCH_VERSION >= (2, 8):
        assert "Failed to mutate tensor data attribute" in str(exc), str(exc)[:300]
    else:
        assert "setattr" in str(exc), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative")))
def test_br033_negative_compiles_whole(case):
    fn, args = corpus_cases("negative")[case]
    assert fullgraph_error(fn, args) is None, case
