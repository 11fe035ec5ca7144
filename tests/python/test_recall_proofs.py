"""Runtime proofs for the recall rules (BR003...): each corpus case runs under real torch.compile.

Every positive case must break the graph with the GB code(s) its rule claims, read from Dynamo's
own counters and mapped to codes through the installed torch's graph_break_registry.json; every
negative case must compile with no graph break. CPU, backend="eager" (Dynamo only), seconds.
docs/gb-coverage.md records the measured table these proofs keep true.
"""

from __future__ import annotations

import json
import types
import warnings
from pathlib import Path

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

from conftest import torch_version
from conftest import load_corpus as shared_load_corpus

TORCH_VERSION = torch_version()
REGISTRY = Path(torch._dynamo.__file__).parent / "graph_break_registry.json"

pytestmark = pytest.mark.skipif(
    TORCH_VERSION < (2, 8), reason="GB codes come from graph_break_registry.json (torch >= 2.8)"
)


def load_corpus(code: str, name: str) -> types.ModuleType:
    return shared_load_corpus(code, name, namespace="recall")


def corpus_cases(code: str, name: str) -> dict:
    return load_corpus(code, name).cases()


def unwrap(fn):
    return getattr(fn, "_torchdynamo_orig_callable", fn)


def gb_code_of(reason: str, by_type: dict[str, str]) -> str:
    first = reason.strip().splitlines()[0].strip()
    if first in by_type:
        return by_type[first]
    return next((c for t, c in by_type.items() if first.startswith(t)), f"unknown: {first[:80]}")


_BY_TYPE: dict[str, str] = {}


def by_type() -> dict[str, str]:
    if not _BY_TYPE:
        for code, entries in json.loads(REGISTRY.read_text()).items():
            for entry in entries:
                _BY_TYPE.setdefault(entry["Gb_type"], code)
    return _BY_TYPE


def break_codes(fn, args, **config) -> list[str]:
    """GB codes of the graph breaks Dynamo counted while compiling and running `fn(*args)` once."""
    torch._dynamo.reset()
    counters.clear()
    with torch._dynamo.config.patch(suppress_errors=False, **config), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = torch.compile(unwrap(fn), backend="eager")
        compiled(*args)
    codes = [gb_code_of(reason, by_type()) for reason in counters["graph_break"]]
    torch._dynamo.reset()
    return codes


def params(code: str, name: str):
    return [pytest.param(case, id=f"{code}-{case}") for case in corpus_cases(code, name)]


# --------------------------------------------------------------------------------------------
# BR003 data-dependent-output-shape

# Broken with capture_dynamic_output_shape_ops=True too: one_hot's own break, and ops with no meta
# kernel (GB0037 "Dynamic shape operator (no meta kernel)" under the flag, GB0036 without it).
BR003_NOT_FIXED_BY_CAPTURE = {
    "one_hot_without_num_classes": ("GB0246", "GB0246"),
    "lstsq": ("GB0036", "GB0037"),
    "ctc_loss": ("GB0036", "GB0037"),
}


@pytest.mark.parametrize("case", params("BR003", "positive"))
def test_br003_positive_breaks_on_dynamic_shape(case):
    fn, args = corpus_cases("BR003", "positive")[case]
    expected, expected_captured = BR003_NOT_FIXED_BY_CAPTURE.get(case, ("GB0036", None))
    codes = break_codes(fn, args)
    assert codes and set(codes) == {expected}, codes
    # What the message promises: capture_dynamic_output_shape_ops keeps all but one_hot and the
    # ops with no meta kernel in the graph.
    captured = break_codes(fn, args, capture_dynamic_output_shape_ops=True)
    if case in BR003_NOT_FIXED_BY_CAPTURE:
        assert set(captured) == {expected_captured}, captured
    else:
        assert captured == [], captured


def test_br003_one_statement_two_breaks_is_one_finding():
    # `x.nonzero().tolist()`: Dynamo breaks twice on the one statement (the dynamic shape, then
    # the read of the values); scan reports it once, as BR003 naming SY002 (`scan/merge.rs`).
    fn = load_corpus("BR003", "positive").nonzero_as_list
    assert break_codes(fn, (torch.randn(4, 3),)) == ["GB0036", "GB0033"]


@pytest.mark.parametrize("case", params("BR003", "negative"))
def test_br003_negative_has_static_shapes(case):
    fn, args = corpus_cases("BR003", "negative")[case]
    assert break_codes(fn, args) == []


# --------------------------------------------------------------------------------------------
# BR004 python-side-effect-in-region


@pytest.mark.parametrize("case", params("BR004", "positive"))
def test_br004_positive_side_effects_break(case):
    fn, args, expected = corpus_cases("BR004", "positive")[case]
    codes = break_codes(fn, args)
    assert set(codes) == expected, codes


@pytest.mark.parametrize("case", params("BR004", "negative"))
def test_br004_negative_traces_without_break(case):
    fn, args = corpus_cases("BR004", "negative")[case]
    assert break_codes(fn, args) == []


# --------------------------------------------------------------------------------------------
# BR005 data-dependent-scalar-op


@pytest.mark.parametrize("case", params("BR005", "positive"))
def test_br005_positive_scalar_ops_break(case):
    fn, args = corpus_cases("BR005", "positive")[case]
    if case == "tensor_slice_bounds":
        # Read with .item(): a graph break, or the whole frame falls back when nothing precedes it.
        graphs, breaks, skipped = frame_outcome(fn, args)
        assert "GB0124" in breaks + skipped, (graphs, breaks, skipped)
        return
    codes = break_codes(fn, args)
    if case in ("range_over_tensor_bound", "range_over_tensor_param"):
        # The builtin `range` refuses a tensor: "Failed to trace builtin operator".
        assert codes and set(codes) == {"GB0059"}, codes
        return
    assert codes and set(codes) == {"GB0033"}, codes


@pytest.mark.parametrize("case", params("BR005", "negative"))
def test_br005_negative_tensor_comparisons_stay_in_graph(case):
    fn, args = corpus_cases("BR005", "negative")[case]
    assert break_codes(fn, args) == []


# --------------------------------------------------------------------------------------------
# CF002 dead-compile-gate (a property of the configuration: the proof runs the gate, not Dynamo)


def is_compiled(obj) -> bool:
    return isinstance(obj, torch._dynamo.eval_frame.OptimizedModule) or hasattr(
        obj, "_torchdynamo_orig_callable"
    )


@pytest.mark.parametrize("case", params("CF002", "positive"))
def test_cf002_positive_gate_is_closed_under_defaults(case):
    build, defaults, opened = corpus_cases("CF002", "positive")[case]
    # Compile switched on, every other field at its declared default: torch.compile never runs.
    assert not is_compiled(build(*defaults))
    # Changing only the field the message names opens the gate: the finding names the cause.
    assert is_compiled(build(*opened))


@pytest.mark.parametrize("case", params("CF002", "negative"))
def test_cf002_negative_gate_is_open_or_undecided(case):
    build, args = corpus_cases("CF002", "negative")[case]
    result = build(*args)
    if case == "unknown_device_and_env":
        # Decided by the machine (CUDA here or not), which the rule must not assume.
        assert is_compiled(result) == torch.cuda.is_available()
    else:
        assert is_compiled(result)


# --------------------------------------------------------------------------------------------
# BR006 deliberate-graph-break


@pytest.mark.parametrize("case", params("BR006", "positive"))
def test_br006_positive_deliberate_breaks_cost_a_graph(case):
    fn, args, expected = corpus_cases("BR006", "positive")[case]
    codes = break_codes(fn, args)
    assert codes and set(codes) == expected, codes


@pytest.mark.parametrize("case", params("BR006", "negative"))
def test_br006_negative_no_break(case):
    fn, args = corpus_cases("BR006", "negative")[case]
    assert break_codes(fn, args) == []


# --------------------------------------------------------------------------------------------
# BR010 skipped-function-call


def test_br010_positive_skipped_calls_break_with_gb0007():
    for case, (fn, args, expected) in corpus_cases("BR010", "positive").items():
        codes = break_codes(fn, args)
        assert codes and set(codes) == expected, (case, codes)


def test_br010_negative_no_break():
    for case, (fn, args) in corpus_cases("BR010", "negative").items():
        assert break_codes(fn, args) == [], case


# --------------------------------------------------------------------------------------------
# BR012 zero-dim-tensor-index


def test_br012_positive_zero_dim_index_breaks():
    for case, (fn, args, expected) in corpus_cases("BR012", "positive").items():
        codes = break_codes(fn, args)
        assert codes and set(codes) == expected, (case, codes)


def test_br012_negative_no_break():
    for case, (fn, args) in corpus_cases("BR012", "negative").items():
        assert break_codes(fn, args) == [], case


# --------------------------------------------------------------------------------------------
# BR011 unwrapped-module-call


def refusals(fn, args) -> tuple[list[str], int]:
    """(GB codes of what Dynamo refused while compiling `fn(*args)`, graphs it compiled).

    A module Dynamo will not wrap is not a resumable graph break: Dynamo stops at the step and
    runs the rest of the frame eagerly, so the refusal is counted under "unimplemented", not
    "graph_break"."""
    torch._dynamo.reset()
    counters.clear()
    with torch._dynamo.config.patch(suppress_errors=False), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explanation = torch._dynamo.explain(unwrap(fn))(*args)
    codes = [gb_code_of(reason, by_type()) for reason in counters["unimplemented"]]
    torch._dynamo.reset()
    return codes, explanation.graph_count


def test_br011_positive_recurrent_modules_are_refused_and_the_frame_runs_eagerly():
    for case, (fn, args, expected) in corpus_cases("BR011", "positive").items():
        codes, graphs = refusals(fn, args)
        assert codes and set(codes) == expected, (case, codes)
        # The forward up to the module is one graph at most; nothing after it is compiled.
        assert graphs <= 1, (case, graphs)


def test_br011_negative_compiles_whole():
    for case, (fn, args) in corpus_cases("BR011", "negative").items():
        codes, graphs = refusals(fn, args)
        assert codes == [] and graphs == 1, (case, codes, graphs)
        assert break_codes(fn, args) == [], case


# --------------------------------------------------------------------------------------------
# BR007 data-ptr-in-region


def frame_outcome(fn, args):
    """(graphs compiled, GB codes of graph breaks, GB codes of frames Dynamo gave up on)."""
    torch._dynamo.reset()
    counters.clear()
    graphs = []

    def counting_backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    with torch._dynamo.config.patch(suppress_errors=False):
        torch.compile(unwrap(fn), backend=counting_backend)(*args)
    breaks = [gb_code_of(r, by_type()) for r in counters["graph_break"]]
    skipped = [gb_code_of(r, by_type()) for r in counters["unimplemented"]]
    torch._dynamo.reset()
    return len(graphs), breaks, skipped


BR007_EXPECTED = {"aliasing_check": "GB0023", "pointer_keyed_cache": "GB0365"}


@pytest.mark.parametrize("case", params("BR007", "positive"))
def test_br007_data_ptr_makes_dynamo_run_the_frame_eagerly(case):
    fn, args = corpus_cases("BR007", "positive")[case]
    graphs, breaks, skipped = frame_outcome(fn, args)
    # Worse than a graph break: nothing of the frame is compiled.
    assert graphs == 0 and breaks == [], (graphs, breaks)
    assert skipped == [BR007_EXPECTED[case]], skipped


@pytest.mark.parametrize("case", params("BR007", "negative"))
def test_br007_negative_compiles_whole(case):
    fn, args = corpus_cases("BR007", "negative")[case]
    graphs, breaks, skipped = frame_outcome(fn, args)
    assert (graphs, breaks, skipped) == (1, [], [])


# --------------------------------------------------------------------------------------------
# Following calls into instances (tests/follow_calls.rs): Dynamo traces into `__call__` of objects
# stored on self, methods of attributes typed in __init__, and instances built locally.


class _Matcher:
    def __call__(self, cost):
        return cost.argmin(-1).tolist()


class _Head:
    def compute_loss(self, x):
        return x.sum().item()


class _Sampler:
    def sample(self, x):
        print("sampling")
        return x


class _Detector(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.matcher = _Matcher()
        self.head = _Head()

    def forward(self, x):
        idx = self.matcher(x)
        loss = self.head.compute_loss(x)
        sampler = _Sampler()
        return sampler.sample(x), idx, loss


def test_dynamo_traces_into_stored_and_local_instances():
    codes = break_codes(_Detector(), (torch.randn(3, 4),))
    # tolist of an int tensor (GB0033), item (GB0124), print (GB0059): one per callee.
    assert sorted(codes) == ["GB0033", "GB0059", "GB0124"], codes


# --------------------------------------------------------------------------------------------
# BR008 side-effect-in-checkpoint


@pytest.mark.parametrize("case", params("BR008", "positive"))
def test_br008_side_effect_in_checkpoint_breaks(case):
    fn, args = corpus_cases("BR008", "positive")[case]
    codes = break_codes(fn, args)
    assert codes and set(codes) == {"GB0067"}, codes


@pytest.mark.parametrize("case", params("BR008", "negative"))
def test_br008_pure_checkpoint_traces(case):
    fn, args = corpus_cases("BR008", "negative")[case]
    assert break_codes(fn, args) == []


def _l1(pred):
    return pred.abs().sum().item()


_LOSSES = {"l1": _l1}


class _Focal:
    def __call__(self, pred):
        print("focal")
        return pred.max()


class _Criterion(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.kind = "l1"
        self.terms = {"focal": _Focal()}

    def forward(self, pred):
        return _LOSSES[self.kind](pred) + self.terms["focal"](pred)


def test_dynamo_traces_through_dispatch_dicts():
    codes = break_codes(_Criterion(), (torch.randn(3, 4),))
    # .item() in the module-level dict's function, print in the self dict's instance.
    assert sorted(codes) == ["GB0059", "GB0124"], codes


# --------------------------------------------------------------------------------------------
# BR009 parameter-created-in-region


@pytest.mark.parametrize("case", params("BR009", "positive"))
def test_br009_parameter_or_buffer_construction_breaks(case):
    fn, args, expected = corpus_cases("BR009", "positive")[case]
    codes = break_codes(fn, args)
    assert set(codes) >= expected and set(codes) <= expected | {"GB0119"}, codes


@pytest.mark.parametrize("case", params("BR009", "negative"))
def test_br009_register_buffer_traces(case):
    fn, args = corpus_cases("BR009", "negative")[case]
    assert break_codes(fn, args) == []


class _SetCriterion(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.empty_weight = torch.nn.Buffer(torch.ones(3))


def _detection_loss(logits):
    _SetCriterion()
    return logits.sum()


_LOSS_MAPPING = {"detection": _detection_loss}


class _WithLossProperty(torch.nn.Module):
    loss_type = "detection"

    @property
    def loss_function(self):
        return _LOSS_MAPPING[self.loss_type]

    def forward(self, logits):
        return self.loss_function(logits)


def test_dynamo_traces_what_a_property_returns_and_the_constructor_it_calls():
    codes = break_codes(_WithLossProperty(), (torch.randn(3, 4),))
    # nn.Buffer in the __init__ of a module built by the function the property returns.
    assert "GB0116" in codes, codes


# --------------------------------------------------------------------------------------------
# SY002 `float()` of a tensor built inline (issue 8: torchvision's `_infer_scale` was missed)


def _float_of_constant_tensor(x):
    return x * float(torch.tensor(0.5))


def _float_of_argument_tensor(x, scale: float):
    return x * float(torch.tensor(scale))


def _float_of_traced_tensor(x):
    return x * float(torch.tensor(x.sum()))


@pytest.mark.parametrize(
    "fn,args",
    [
        pytest.param(_float_of_constant_tensor, (torch.ones(3),), id="python-constant"),
        pytest.param(_float_of_argument_tensor, (torch.ones(3), 0.5), id="python-float-argument"),
        pytest.param(_float_of_traced_tensor, (torch.ones(3),), id="traced-tensor"),
    ],
)
def test_float_of_an_inline_tensor_is_not_folded(fn, args):
    # Not constant-folded even when the data is a Python constant: the read is `.item()` (GB0124).
    assert break_codes(fn, args) == ["GB0124"]


@pytest.mark.parametrize("case", ["float_of_inline_host_tensor", "float_of_inline_device_tensor"])
def test_sy002_float_of_inline_tensor_breaks(case):
    fn, args = corpus_cases("SY002", "positive")[case]
    assert break_codes(fn, args) == ["GB0124"]


def test_sy002_scale_math_on_the_host_is_folded():
    fn, args = corpus_cases("SY002", "negative")["scale_math_on_the_host"]
    assert break_codes(fn, args) == []


# --------------------------------------------------------------------------------------------
# BR013 cached-wrapper-call


@pytest.mark.parametrize("case", params("BR013", "positive"))
def test_br013_call_through_a_cache_wrapper_attribute_breaks(case):
    fn, args, expected = corpus_cases("BR013", "positive")[case]
    codes = break_codes(fn, args)
    assert codes and set(codes) == expected, codes


@pytest.mark.parametrize("case", params("BR013", "negative"))
def test_br013_decorated_cached_functions_trace(case):
    fn, args = corpus_cases("BR013", "negative")[case]
    assert break_codes(fn, args) == []
