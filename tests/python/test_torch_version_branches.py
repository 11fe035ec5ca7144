"""corpus/torch_versions/branches.py: the values scan assumes for each torch-version flag hold
under the installed torch (>= 2.1 here), by evaluating the corpus's own flag definitions."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch  # noqa: F401 - without torch this check must fail to import, never skip

BRANCHES = Path(__file__).resolve().parents[2] / "corpus" / "torch_versions" / "branches.py"


def test_each_flag_has_the_value_scan_assumes_on_a_compiling_torch():
    spec = importlib.util.spec_from_file_location("graphbreak_torch_version_branches", BRANCHES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module._TORCH_GE_2 is True  # its else is not traced
    assert module.IS_OLD_TORCH is False  # its body is not traced
    assert module.TORCH_GE_2_1 is True  # dead only with a floor >= 2.1
    assert module.TORCH_GE_3 is False  # unknown to scan: both sides kept


ACROSS_FILES = BRANCHES.parent / "across_files"


def test_flags_of_another_module_hold_and_dynamo_breaks_only_where_scan_reports(monkeypatch):
    """corpus/torch_versions/across_files: scan reports only `if TORCH_GE_3:` (model.py:27). On
    a torch that compiles, the flags have the values scan assumes and the compiled Model does not
    break; with `TORCH_GE_3` forced true, Dynamo breaks at line 27 — the reported branch is live
    code, the others are not."""
    import torch._dynamo

    monkeypatch.syspath_prepend(str(ACROSS_FILES.parent))
    from across_files import compat, model

    assert compat.TORCH_GE_2 is True
    assert compat.IS_TORCH_1 is False
    assert compat.TORCH_GE_3 is False

    x = torch.randn(4)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(model.Model())(x)
    assert explained.graph_break_count == 0, explained.break_reasons

    monkeypatch.setattr(model, "TORCH_GE_3", True)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(model.Model())(x)
    assert explained.graph_break_count >= 1
    lines = {
        frame.lineno
        for reason in explained.break_reasons
        for frame in reason.user_stack
        if frame.filename.endswith("model.py")
    }
    assert 27 in lines, explained.break_reasons
