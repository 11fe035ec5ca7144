"""Runtime proofs for the option tier (src/semantic/options.rs): corpus/reach/option_gated's `Net`
breaks under Dynamo on each `# gated` line only when the constructor option guarding it differs
from its default, and on each `# normal` line with the defaults too (CPU, backend="eager"). The
lines are the ones tests/option_gated.rs expects scan to put in each tier.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import torch
import torch._dynamo

FIXTURE = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "option_gated"
MODEL = FIXTURE / "pkg" / "model.py"


def marked(tag: str) -> set[int]:
    return {
        number
        for number, line in enumerate(MODEL.read_text().splitlines(), start=1)
        if f"# {tag}:" in line
    }


def break_lines(net: torch.nn.Module) -> set[int]:
    torch._dynamo.reset()
    # A fixed input: with some random ones `x[x > 0]` is empty and `.min()` after it raises
    # (seed 0 does; seed 2 does not).
    torch.manual_seed(2)
    explanation = torch._dynamo.explain(net)(torch.randn(2, 4))
    seen = set()
    for reason in explanation.break_reasons:
        for frame in reason.user_stack:
            if Path(frame.filename) == MODEL:
                seen.add(frame.lineno)
    return seen


def load():
    sys.path.insert(0, str(FIXTURE))
    try:
        return importlib.import_module("pkg.model")
    finally:
        sys.path.remove(str(FIXTURE))


NET_END = 60  # the lines of `Block` and `Net`; `Inner`, `Outer` and `Received` follow


def test_gated_lines_break_only_with_their_options_set():
    model = load()
    gated, normal = marked("gated"), marked("normal")
    assert len(gated) == 11 and len(normal) == 2
    gated = {line for line in gated if line < NET_END}
    at_defaults = break_lines(model.Net(4))
    assert not (gated & at_defaults), f"broke at the defaults on gated lines {sorted(gated & at_defaults)}"
    assert 36 in at_defaults, f"the normal line in _shared did not break: {sorted(at_defaults)}"
    options_set = model.Net(4, self_condition=True, use_ema=True, proj=object(), mode="cubic", clamp=False)
    with_options = break_lines(options_set)
    missing = gated - with_options
    assert not missing, f"no break at {sorted(missing)} with the options set; breaks at {sorted(with_options)}"


def test_an_option_a_construction_site_sets_breaks():
    model = load()
    block = model.Block(4, checkpoint_every=True)
    assert 18 in break_lines(block)


def test_borrowed_and_normalized_options_break_only_with_the_submodules_option_set():
    model = load()
    gated = {line for line in marked("gated") if line >= NET_END}
    assert len(gated) == 5
    at_defaults = break_lines(model.Outer(4)) | break_lines(model.Received(model.Inner(4)))
    assert not (gated & at_defaults), f"broke at the defaults on gated lines {sorted(gated & at_defaults)}"
    with_options = break_lines(model.Outer(4, flag=True, scale=True, shift=True))
    with_options |= break_lines(model.Received(model.Inner(4, flag=True)))
    missing = gated - with_options
    assert not missing, f"no break at {sorted(missing)} with the options set; breaks at {sorted(with_options)}"
