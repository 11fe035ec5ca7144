"""Runtime proofs for CR004 (side-effect-in-cond-branch): a `torch.cond` branch that writes
outside state makes the call raise, compiled or eager (torch.cond traces its branches itself);
pure branches compile and match eager.

Version-independent on purpose (the exception's words change, the outcome does not): run it under
each torch of the matrix (2.2, 2.5, 2.8, 2.11 measured, without `fullgraph`, backend "eager").
"""

from __future__ import annotations

import importlib
import re

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
import torch._dynamo
from conftest import REPO, load_corpus


def corpus(name: str):
    return load_corpus("CR004", name, "cond_branch")


def compiled(module, args):
    torch._dynamo.reset()
    try:
        return torch.compile(module, backend="eager")(*args)
    finally:
        torch._dynamo.reset()


@pytest.mark.parametrize("case", list(corpus("positive").cases()))
def test_cr004_positive_call_raises_compiled_and_eager(case):
    module, args = corpus("positive").cases()[case]
    with pytest.raises(Exception, match="captured complete"):
        compiled(module, args)
    # Eagerly too: torch.cond compiles its branches itself.
    torch._dynamo.reset()
    with pytest.raises(Exception, match="captured complete"):
        module(*args)
    torch._dynamo.reset()


@pytest.mark.parametrize("case", list(corpus("negative").cases()))
def test_cr004_negative_compiles_and_matches_eager(case):
    module, args = corpus("negative").cases()[case]
    torch.testing.assert_close(compiled(module, args), module(*args))


def test_every_cond_spelling_scan_knows_is_torch_cond_here():
    """src/semantic/data.rs COND_SPELLINGS: each names the very function `torch.cond` is."""
    source = (REPO / "src" / "semantic" / "data.rs").read_text()
    block = re.search(r"COND_SPELLINGS: &\[&str\] = &\[(.*?)\];", source, re.S).group(1)
    spellings = re.findall(r'"([^"]+)"', block)
    assert "functorch.experimental.control_flow.cond" in spellings
    for spelling in spellings:
        module, _, name = spelling.rpartition(".")
        assert getattr(importlib.import_module(module), name) is torch.cond, spelling


# ---- a break inside a cond branch (corpus/reach/cond_branches): the cond call raises ----------


def _gates():
    # Imported as a real package (Dynamo imports the module of a global it reads by name).
    import sys  # noqa: PLC0415

    root = str(REPO / "corpus" / "reach" / "cond_branches")
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module("cond_gates.gates")


GATES = _gates()


@pytest.mark.parametrize("case", list(GATES.cases()))
def test_a_break_in_a_cond_branch_makes_the_cond_raise(case):
    fn, args, _ = GATES.cases()[case]
    with pytest.raises(Exception) as raised:
        compiled(fn, args)
    _assert_cond_failed(raised.value)
    torch._dynamo.reset()
    # Eagerly too, except a scalar read on torch 2.11, captured as under fullgraph=True
    # (rules/data/scalar_reads.toml): scan says so through the branch's fullgraph root.
    captured = case == "item" and tuple(int(v) for v in torch.__version__.split(".")[:2]) >= (2, 11)
    if captured:
        fn(*args)
    else:
        with pytest.raises(Exception) as raised:
            fn(*args)
        _assert_cond_failed(raised.value)
    torch._dynamo.reset()


def _assert_cond_failed(error: BaseException):
    # Dynamo's failure to capture the branch: UncapturedHigherOrderOpError, except that torch 2.5
    # raises an AssertionError from inside Dynamo (its "from user code" trace) for `.item()`.
    assert (
        "captured complete" in str(error)
        or "HigherOrderOp" in type(error).__name__
        or "from user code" in str(error)
    ), (type(error), str(error)[:300])

