"""Proofs for the Dynamo config flags scan reads from the tree (`src/semantic/model/dynamo_config.rs`):
with `capture_scalar_outputs = True`, `.item()` and `float(t)` stay in the graph, so SY002 keeps
only its sync wording (corpus/rules/SY002/captured_scalars.py). Version-independent: run it under
each torch of the matrix (2.2, 2.5, 2.8, 2.11 measured).
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
import torch._dynamo
from conftest import fullgraph_error, load_corpus


def corpus_cases():
    return load_corpus("SY002", "captured_scalars", "dynamo_config").cases()


TORCH_VERSION = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])


@pytest.mark.parametrize("case", list(corpus_cases()))
def test_with_capture_scalar_outputs_the_read_compiles_whole(case):
    fn, args = corpus_cases()[case]
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        error = fullgraph_error(fn, args)
    if case == "host_item" and TORCH_VERSION < (2, 8):
        # Before 2.8 the `.item()` of a constant tensor still breaks with the flag: scan, which
        # drops that finding when the flag is set, misses it there (a recall loss, no false claim).
        assert error is not None
        return
    assert error is None, case


def graphs_without_the_flag(fn, args) -> int:
    """Graphs compiled for one call without `fullgraph` (torch 2.11 captures scalars under
    `fullgraph=True` even without the flag, so the break shows only without it)."""
    torch._dynamo.reset()
    graphs = []

    def count(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    with torch._dynamo.config.patch(capture_scalar_outputs=False):
        torch.compile(fn, backend=count)(*args)
    torch._dynamo.reset()
    return len(graphs)


def test_without_it_the_device_read_breaks():
    fn, args = corpus_cases()["device_item"]
    # `x.max()` in one graph, `x * n` in the next: the read is a graph break.
    assert graphs_without_the_flag(fn, args) == 2


def test_float_of_a_tensor_compiles_whole_with_the_flag():
    def scaled(x):
        return x * float(x.max())

    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        assert fullgraph_error(scaled, (torch.randn(4),)) is None
