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
