"""Runtime proofs for Dynamo's markers (rules/data/dynamo_markers.toml; BR006, BR010) on every torch.

test_recall_proofs.py checks the GB codes of the corpus cases on torch >= 2.8 (where Dynamo has a
graph-break registry). These run the same corpus cases on whatever torch runs them (2.2, 2.5, 2.8,
2.11) and check that a case breaks exactly when the markers table says its marker breaks on this
torch:
    /work/venvs/torch-2.5/bin/python -m pytest tests/python/test_marker_proofs.py -q
"""

from __future__ import annotations

import tomllib
import warnings

import pytest
import torch
import torch._dynamo

from conftest import REPO, load_corpus, torch_version

TORCH_VERSION = torch_version()

# corpus case -> (the marker it applies, the target kind it marks)
MARKED = {
    ("BR006", "skip_and_late_disable"): ("torch._dynamo.decorators.skip", "function"),
    ("BR006", "class_decorator_disable"): ("torch._dynamo.disable", "module_class"),
    ("BR006", "class_disabled_in_place"): ("torch.compiler.disable", "module_class"),
    ("BR006", "instance_disable"): ("torch.compiler.disable", "module_instance"),
    ("BR006", "disabled_forward_hook"): ("torch.compiler.disable", "forward_hook"),
    ("BR006", "self_registered_disabled_hook"): ("torch.compiler.disable", "forward_hook"),
    ("BR010", "disallowed_torch_function"): ("torch._dynamo.disallow_in_graph", "torch_function"),
}


def breaks_here(marker: str, kind: str) -> bool:
    data = tomllib.loads((REPO / "rules" / "data" / "dynamo_markers.toml").read_text())
    for group in data["entries"]:
        low, _, high = group["torch"].partition(",")
        low = tuple(int(p) for p in low.lstrip(">=").split("."))
        high = tuple(int(p) for p in high.lstrip("<").split(".")) if high else None
        if TORCH_VERSION >= low and (high is None or TORCH_VERSION < high):
            if marker in group["names"] and kind in group:
                return True
    return False


def fullgraph_break(fn, args) -> str | None:
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.compile(getattr(fn, "_torchdynamo_orig_callable", fn), backend="eager", fullgraph=True)(*args)
    except torch._dynamo.exc.Unsupported as exc:
        return str(exc).strip().splitlines()[0]
    finally:
        torch._dynamo.reset()
    return None


@pytest.mark.parametrize("code,case", list(MARKED), ids=[c for _, c in MARKED])
def test_marked_call_breaks_where_the_table_says(code, case):
    marker, kind = MARKED[(code, case)]
    fn, args, _ = load_corpus(code, "positive", "markers").cases()[case]
    found = fullgraph_break(fn, args)
    if breaks_here(marker, kind):
        assert found is not None, (case, "expected a break")
    elif case != "skip_and_late_disable":  # its second call (`disable`) breaks on every torch
        assert found is None, (case, found)


@pytest.mark.parametrize("case", ["allow_in_graph_call", "plain_forward_hook", "plain_self_hook"])
def test_unmarked_or_allowed_calls_do_not_break(case):
    fn, args = load_corpus("BR006", "negative", "markers").cases()[case]
    assert fullgraph_break(fn, args) is None


# BR004: a tensor hook's handle stored in a global breaks from torch 2.5 on (2.2 refuses
# `register_hook` in compiled code altogether), and Dynamo gives up on the whole frame (0 graphs);
# a local handle does not break.
@pytest.mark.skipif(TORCH_VERSION < (2, 5), reason="torch 2.2 breaks on register_hook itself")
def test_hook_handle_in_global_skips_the_frame_and_a_local_one_does_not():
    from torch._dynamo.testing import CompileCounter

    positive = load_corpus("BR004", "positive", "markers")
    args = (torch.randn(4, 8, requires_grad=True),)
    assert fullgraph_break(positive.hooked_step, args) is not None
    counter = CompileCounter()
    torch._dynamo.reset()
    with torch._dynamo.config.patch(suppress_errors=False):
        torch.compile(positive.hooked_step._torchdynamo_orig_callable, backend=counter)(*args)
    torch._dynamo.reset()
    assert counter.frame_count == 0
    fn, args = load_corpus("BR004", "negative", "markers").cases()["local_hook_handle"]
    assert fullgraph_break(fn, args) is None
