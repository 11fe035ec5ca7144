"""Runtime proofs for BR041 (outside-context-manager): a `with` over a context manager built
outside the frame Dynamo traces makes Dynamo give up on that frame.

Version-independent on purpose: a graph count, not a registry type. Run it under each torch of the
matrix (2.2, 2.5, 2.8, 2.11 measured):
    /work/venvs/torch-2.5/bin/python -m pytest tests/python/test_outside_context_manager_proofs.py -q
A stored or module-level instance gives 0 graphs on every one of them; a local of a class of the
file carried across a graph break stops the resumed frame at the `with` from torch 2.5 on (scan
reports it from a floor of 2.5: corpus/rules/BR041/pyproject.toml).
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
import torch._dynamo
from conftest import load_corpus, torch_version

TORCH_VERSION = torch_version()


def corpus(name: str):
    return load_corpus("BR041", name, "outside_context_manager")


def compiled_graphs(module, args) -> int:
    """Graphs Dynamo compiles for one call (a counting backend), with eager semantics checked."""
    torch._dynamo.reset()
    graphs = []

    def count(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    grad_enabled = torch.is_grad_enabled()
    try:
        with torch._dynamo.config.patch(suppress_errors=False):
            out = torch.compile(module, backend=count)(*args)
        # Grad mode after the compiled call: a torch grad-mode context manager carried across a
        # break leaks it (below); the eager call must run in the mode the compiled one started in.
        leaked = torch.is_grad_enabled() != grad_enabled
    finally:
        torch.set_grad_enabled(grad_enabled)
        torch._dynamo.reset()
    torch.testing.assert_close(out, module(*args))
    compiled_graphs.leaked_grad_mode = leaked
    return len(graphs)


@pytest.mark.parametrize("case", list(corpus("positive").cases()))
def test_br041_positive_gives_up_on_the_frame(case):
    module, args, graphs = corpus("positive").cases()[case]
    if case == "crossing_break" and TORCH_VERSION < (2, 5):
        # 2.2 gives up on the whole frame already at the break: no graph at all.
        assert compiled_graphs(module, args) == 0
        return
    assert compiled_graphs(module, args) == graphs, case


@pytest.mark.parametrize("case", list(corpus("positive").contrast_cases()))
def test_br041_contrast_resumes_and_enters(case):
    module, args, graphs = corpus("positive").contrast_cases()[case]
    if case == "torch_crossing" and TORCH_VERSION < (2, 5):
        # 2.2 resumes with the class, not the instance: the `with` raises (a Dynamo bug fixed by
        # 2.5). Not BR041's claim either way; scan reports the crossing from a floor of 2.5.
        with pytest.raises(TypeError, match="context manager protocol"):
            compiled_graphs(module, args)
        return
    assert compiled_graphs(module, args) == graphs, case
    # A Dynamo bug measured on torch 2.5, 2.8 and 2.11 (not a claim of BR041's, recorded so a
    # change is noticed): a `torch.no_grad()` built before a break and entered after it leaves
    # grad mode disabled once the compiled call returns; eagerly it is restored.
    assert compiled_graphs.leaked_grad_mode == (case == "torch_crossing"), case


@pytest.mark.parametrize("case", list(corpus("negative").cases()))
def test_br041_negative_compiles(case):
    module, args, graphs = corpus("negative").cases()[case]
    assert compiled_graphs(module, args) == graphs, case


def test_the_stored_instance_is_refused_as_unsupported_context_manager():
    # The reason, where the registry has it (2.8+): the `with` itself, not something before it.
    if TORCH_VERSION < (2, 8):
        pytest.skip("GB0142's wording is from torch 2.8 on; older torches: the graph counts above")
    module, args, _ = corpus("positive").cases()["attribute"]
    torch._dynamo.reset()
    with pytest.raises(Exception, match="Unsupported context manager"):
        torch.compile(module, backend="eager", fullgraph=True)(*args)
    torch._dynamo.reset()
