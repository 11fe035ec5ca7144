"""Runtime proof for BR011 on `super().forward(...)` in a subclass of torch's RNN/GRU/LSTM
(src/rules/br011_unwrapped_module_call.rs): the call runs torch's recurrent forward on `self`,
which Dynamo refuses to wrap (GB0014), giving up on the frame, so a later print is never traced.
corpus/reach/cross_file_rnn/pkg/stacked.py (`Stacked` derives from the project's `Lstm` of another
file; `Widened` from a module Dynamo wraps) and pkg/model.py (`Encoder` calls an `Lstm` whose own
`forward` calls `super().forward`: two refusals). tests/cross_file_classes.rs expects scan to
report exactly these (torch 2.11, backend="eager")."""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
from torch._dynamo.utils import counters  # noqa: E402

FIXTURE = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "cross_file_rnn"


def _run(module: str, case: str):
    for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        del sys.modules[name]
    sys.path.insert(0, str(FIXTURE))
    try:
        net, args = getattr(importlib.import_module(module), case)()
    finally:
        sys.path.remove(str(FIXTURE))
    torch._dynamo.reset()
    counters.clear()
    with torch._dynamo.config.patch(suppress_errors=False), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explanation = torch._dynamo.explain(net)(*args)
    refusals = dict(counters["unimplemented"])
    torch._dynamo.reset()
    return refusals, explanation


def _rnn_refusals(refusals) -> int:
    return sum(n for reason, n in refusals.items() if "Attempted to wrap RNN, GRU, or LSTM" in reason)


def test_super_forward_of_an_rnn_subclass_gives_up_on_the_frame_and_the_later_print_is_never_traced():
    refusals, explanation = _run("pkg.stacked", "case_stacked")
    # Calling the module is refused, and so is the `Stacked.forward` frame its eager call runs.
    assert _rnn_refusals(refusals) == 2, refusals
    # The frame runs eagerly: no graph, and the print after the call is no break.
    assert explanation.graph_count == 0 and not explanation.break_reasons, explanation


def test_super_forward_of_a_wrapped_module_subclass_is_traced_whole():
    refusals, explanation = _run("pkg.stacked", "case_widened")
    assert refusals == {} and explanation.graph_count == 1 and not explanation.break_reasons


def test_an_rnn_subclass_whose_forward_calls_super_forward_is_refused_in_its_own_frame_too():
    # model.py:15 (`self.rnn(...)`, the caller's frame) and recurrent.py:7 (`super().forward`).
    refusals, _ = _run("pkg.model", "case_encoder")
    assert _rnn_refusals(refusals) == 2, refusals
