"""Runtime proofs for BR035 (untraceable-tensor-method): each positive corpus case breaks under
real Dynamo with the graph-break type rules/data/tensor_method_breaks.toml holds for this torch;
each negative (the same method names outside compiled code, on objects that are not tensors, or
a module's own method) compiles as one graph.

CPU, backend="eager", fullgraph=True.
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
from conftest import fullgraph_error, load_corpus

from test_generated_tables import table


def corpus_cases(name: str) -> dict:
    return load_corpus("BR035", name, "untraceable_tensor_method").cases()


@pytest.mark.parametrize("case", list(corpus_cases("positive")))
def test_br035_positive_breaks_with_the_table_type(case):
    fn, args = corpus_cases("positive")[case]
    _, entries = table("tensor_method_breaks")
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, (case, exc)
    assert entries[case]["gb_type"] in str(exc), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative")))
def test_br035_negative_compiles_whole(case):
    fn, args = corpus_cases("negative")[case]
    assert fullgraph_error(fn, args) is None, case


def test_br035_backward_outside_the_compiled_function_runs():
    """The negative's `step` calls the compiled forward, then `.backward()` eagerly: it runs and
    fills the gradients (no break inside the compiled function)."""
    negative = load_corpus("BR035", "negative", "untraceable_tensor_method")
    model = torch.nn.Linear(4, 2)
    negative.step(model, torch.randn(3, 4))
    assert model.weight.grad is not None
