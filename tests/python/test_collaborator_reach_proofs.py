"""Runtime proofs for property reads on collaborators (src/semantic/link/property_reads.rs):
Dynamo (backend="eager") inlines the `@property` getter a traced `forward` reads on an object
whose class `__init__` stored, an annotated constructor parameter gave (a subclass's override
runs), an annotated parameter or a factory's result gave — and a getter read inside a getter.
A `functools.cached_property` read on a plain class is not traced (Dynamo breaks in functools'
`__get__`, skips the frame and runs the getter eagerly); one on an `nn.Module` is, as a frame of
its own. tests/collaborators.rs expects scan to report exactly these lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from test_reach_proofs import _fixture_module, _logged_breaks

FIXTURE = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "collaborators"

BREAKS = {
    "case_stored": {("parts.py", 17)},
    "case_injected": {("parts.py", 45)},
    "case_annotated": {("parts.py", 32)},
    "case_made": {("parts.py", 32)},
    "case_memo": set(),
    "case_own_memo": {("model.py", 63)},
}


@pytest.mark.parametrize("case", sorted(BREAKS))
def test_dynamo_traces_the_property_getters_of_collaborators(case):
    model = _fixture_module(FIXTURE, "pkg.model")
    net, args = getattr(model, case)()
    assert _logged_breaks(FIXTURE, net, args) == BREAKS[case], case


CALL_OVERRIDES = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "call_overrides"

# tests/call_overrides.rs: blocks.py:17 in `Direct.prepare` (the override's own callee, before it
# calls `self.forward`), blocks.py:32 in `Post.finish` (after `super().__call__`).
CALL_OVERRIDE_BREAKS = {
    "case_net": {("blocks.py", 17), ("blocks.py", 32)},
    "case_stack": {("blocks.py", 17), ("blocks.py", 32)},
    "case_shift": {("blocks.py", 17)},
}


@pytest.mark.parametrize("case", sorted(CALL_OVERRIDE_BREAKS))
def test_dynamo_traces_a_modules_call_override_and_its_callees(case):
    model = _fixture_module(CALL_OVERRIDES, "pkg.model")
    net, args = getattr(model, case)()
    assert _logged_breaks(CALL_OVERRIDES, net, args) == CALL_OVERRIDE_BREAKS[case], case


METHOD_ROOTS = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "method_roots"


def test_dynamo_traces_an_inherited_entry_point_with_the_subclass_overrides():
    # tests/method_roots.rs: compiling `Text().encode` (defined on `Coder`) breaks in
    # `Text.embed` (model.py:23), never in the sibling `Image.embed`.
    model = _fixture_module(METHOD_ROOTS, "pkg.model")
    fn, args = model.case_encode()
    assert _logged_breaks(METHOD_ROOTS, fn, args) == {("model.py", 23)}


TORCH_HOOKS = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "torch_hooks"

# tests/torch_hooks.rs: model.py:13 in `Conv._conv_forward`, model.py:19 in
# `Norm._check_input_dim`, each called by torch's own `forward`.
TORCH_HOOK_BREAKS = {
    "case_net": {("model.py", 13), ("model.py", 19)},
    "case_conv": {("model.py", 13)},
}


@pytest.mark.parametrize("case", sorted(TORCH_HOOK_BREAKS))
def test_dynamo_traces_the_overrides_torchs_forward_calls(case):
    model = _fixture_module(TORCH_HOOKS, "pkg.model")
    net, args = getattr(model, case)()
    assert _logged_breaks(TORCH_HOOKS, net, args) == TORCH_HOOK_BREAKS[case], case


CHAINS = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "collaborator_chains"

# tests/collaborator_chains.rs: the getter and the method two hops from `self`.
CHAIN_BREAKS = {
    "case_read": {("cache.py", 15)},
    "case_call": {("cache.py", 18)},
    "case_base": {("cache.py", 15)},
}


@pytest.mark.parametrize("case", sorted(CHAIN_BREAKS))
def test_dynamo_traces_through_chains_of_stored_collaborators(case):
    model = _fixture_module(CHAINS, "pkg.model")
    net, args = getattr(model, case)()
    assert _logged_breaks(CHAINS, net, args) == CHAIN_BREAKS[case], case
