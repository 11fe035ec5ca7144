"""Runtime proof for alternative class definitions (src/semantic/model/statements.rs,
`summary::ALTERNATIVE_MARK`): two class statements binding one name are two classes. In
corpus/reach/alternative_definitions/pkg/layers.py the `try:` branch's `Sampler.draw` reads
`self.prefix` — its own statement's getter, which never warns — and the `except ImportError:`
branch's getter (line 36) is never read by anything; the `if` branch's `Scaler` (the one Python
binds) breaks on its getter's warning (line 45). Dynamo (torch 2.11, backend="eager") breaks at 45
and never at 36, with the optional dependency missing (the handler's `Sampler`) and present (the
`try` body's): tests/alternative_definitions.rs expects scan to report 45 and not 36.
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

FIXTURE = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "alternative_definitions"
OPTIONAL = "graphbreak_absent_optional_dependency"


def _breaks(with_optional: bool) -> tuple[set[int], object]:
    for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        del sys.modules[name]
    if with_optional:
        sys.modules[OPTIONAL] = types.ModuleType(OPTIONAL)
    sys.path.insert(0, str(FIXTURE))
    try:
        model = importlib.import_module("pkg.model")
        net, args = model.case_net()
        torch._dynamo.reset()
        explanation = torch._dynamo.explain(net)(*args)
    finally:
        sys.path.remove(str(FIXTURE))
        sys.modules.pop(OPTIONAL, None)
    lines = {
        frame.lineno
        for reason in explanation.break_reasons
        for frame in reason.user_stack
        if Path(frame.filename).name == "layers.py"
    }
    return lines, model


@pytest.mark.parametrize("with_optional", [False, True])
def test_self_in_one_class_statement_never_runs_the_other_statements_getter(with_optional):
    lines, model = _breaks(with_optional)
    sampler = model.Sampler
    # The class Python bound is the one the dependency decides.
    assert ("draw" in vars(sampler)) is with_optional
    assert 45 in lines, f"breaks seen at layers.py {sorted(lines)}"
    assert 36 not in lines, f"breaks seen at layers.py {sorted(lines)}"
