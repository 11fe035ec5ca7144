"""Runtime proofs for the static rules: each rule's corpus cases run under real torch.compile.

The positives in corpus/rules/<CODE>/positive.py must show the behaviour the rule claims (crash,
graph break, sync, silent fallback, blind test); the negatives' region code must really be safe under
Dynamo. Everything runs on CPU with backend="eager" (Dynamo only, no Inductor) except the SY001
proofs, which need CUDA and skip with a reason elsewhere.

Facts asserted here were measured on torch 2.11; docs/rule-proofs.md and the
corpus docstrings record the exact texts.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import logging
import re
import tomllib
import types
import time
import warnings

import pytest
import torch
import torch._dynamo
from torch import nn

from conftest import CORPUS_DIR, REPO, load_corpus, torch_version

API_TABLE = REPO / "rules" / "data" / "torch_api_versions.toml"
TORCH_VERSION = torch_version()

SHAPE_AS_TENSOR_CRASH = "expected Tensor as element 0 in argument 0, but got torch.Size"


# --------------------------------------------------------------------------------------------
# helpers


def corpus_cases(code: str, name: str, *args) -> dict:
    return load_corpus(code, name).cases(*args)


def unwrap(fn):
    """The user function behind an `@torch.compile` decoration (so we can compile it with eager)."""
    return getattr(fn, "_torchdynamo_orig_callable", fn)


def compile_eager(fn):
    return torch.compile(unwrap(fn), backend="eager")


def explain(fn, *args):
    return torch._dynamo.explain(unwrap(fn))(*args)


def reasons(explanation) -> list[str]:
    # explain()'s graph_break_count is graph_count - 1 and undercounts when the code after a break
    # produces no graph; break_reasons lists every break, so the proofs count those.
    return [r.reason for r in explanation.break_reasons]


@contextlib.contextmanager
def graph_break_log():
    """Collect Dynamo's graph-break log lines (they carry the gb_type, e.g. 'Data-dependent branching')."""
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    handler = Collect()
    logger = logging.getLogger("torch._dynamo")
    torch._logging.set_logs(graph_breaks=True)
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        torch._logging.set_logs()


@pytest.fixture(autouse=True)
def fresh_dynamo():
    """Each proof starts from empty Dynamo caches and default error handling, and restores both."""
    torch._dynamo.reset()
    with torch._dynamo.config.patch(suppress_errors=False):
        yield
    torch._dynamo.reset()


def case_params(code: str, name: str, *args):
    return [pytest.param(code, name, case, id=case) for case in corpus_cases(code, name, *args)]


def assert_only_deliberate_breaks(explanation):
    """Negatives may break only where they call a torch.compiler.disable'd function on purpose."""
    for reason in reasons(explanation):
        assert "disable" in reason.lower(), f"unexpected graph break in a negative: {reason}"


class CrashesUnderCompile(nn.Module):
    """A model that is fine eagerly and crashes under Dynamo (the CR001 pattern, from the corpus)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        sizes = load_corpus("CR001", "positive").spatial_size(x)
        return self.fc(x) + sizes.sum()


# --------------------------------------------------------------------------------------------
# BR002 import-probe-in-region


@pytest.mark.parametrize("code,name,case", case_params("BR002", "positive"))
def test_br002_failed_probe_makes_dynamo_give_up_on_the_frame(code, name, case):
    fn, args = corpus_cases(code, name)[case]
    unwrap(fn)(*args)  # eager is fine: the probe just says "not available"
    # The failing import is GB0069 "Import failure": a graph break where the probe is called (and
    # when the probe sits in the frame's own try block, no graph for that frame at all).
    with graph_break_log() as logs:
        explanation = explain(fn, *args)
    assert any("Import failure" in line for line in logs) or explanation.graph_count == 0, logs
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported, match="Import failure"):
        torch.compile(unwrap(fn), backend="eager", fullgraph=True)(*args)


@pytest.mark.parametrize("code,name,case", case_params("BR002", "negative"))
def test_br002_negative_imports_trace(code, name, case):
    fn, args = corpus_cases(code, name)[case]
    explanation = explain(fn, *args)
    assert explanation.graph_count >= 1
    assert_only_deliberate_breaks(explanation)


# --------------------------------------------------------------------------------------------
# RC001 python-counter-in-forward


def compiled_graph_count(module, args, calls=12):
    """Unique graphs Dynamo produced over `calls` identical calls (1 = no recompiles)."""
    from torch._dynamo.utils import counters

    counters.clear()
    compiled = torch.compile(module, backend="eager")
    for _ in range(calls):
        compiled(*args)
    return counters["stats"]["unique_graphs"]


@pytest.mark.parametrize("code,name,case", case_params("RC001", "positive"))
def test_rc001_counter_recompiles_every_call_until_the_limit(code, name, case):
    module, args = corpus_cases(code, name)[case]
    graphs = compiled_graph_count(module, args)
    # One graph per call until the recompile limit, then eager: never a single cached graph.
    limit = getattr(torch._dynamo.config, "recompile_limit", None) or torch._dynamo.config.cache_size_limit
    assert graphs == limit, f"{case}: {graphs} graphs over 12 identical calls (limit {limit})"


@pytest.mark.parametrize("code,name,case", case_params("RC001", "negative"))
def test_rc001_negative_counters_compile_once(code, name, case):
    module, args = corpus_cases(code, name)[case]
    assert compiled_graph_count(module, args) <= 2, f"{case} recompiled"


class PoolingSchedule(nn.Module):
    """transformers' FunnelAttentionStructure: the counter is reset in one method at the start of each
    call and doubled in others later in the same call (modeling_funnel.py, `pooling_mult`)."""

    def __init__(self):
        super().__init__()
        self.pooling_mult = None

    def init_inputs(self, x):
        self.pooling_mult = 1
        return x

    def pool(self, x):
        self.pooling_mult *= 2
        return x * self.pooling_mult

    def forward(self, x):
        x = self.init_inputs(x)
        return self.pool(self.pool(x))


def test_rc001_counter_reset_earlier_in_the_call_compiles_once():
    # The scan still flags `self.pooling_mult *= 2` here (RC001, judged wrong in
    # docs/real-code-precision.md "Review audit (stop 13)"): the store of 1 comes before any read in
    # the traced call, so Dynamo never guards on the value the frame is entered with.
    module = PoolingSchedule()
    assert compiled_graph_count(module, (torch.randn(4),)) == 1
    assert module.pooling_mult == 4


# --------------------------------------------------------------------------------------------
# CR001 shape-as-tensor-stack


@pytest.mark.parametrize("code,name,case", case_params("CR001", "positive"))
def test_cr001_positive_runs_eagerly_and_crashes_under_compile(code, name, case):
    fn, args = corpus_cases(code, name)[case]
    unwrap(fn)(*args)  # eager is fine
    with pytest.raises(TypeError, match=re.escape(SHAPE_AS_TENSOR_CRASH)):
        compile_eager(fn)(*args)


def test_cr001_explain_raises_the_same_type_error():
    fn, args = corpus_cases("CR001", "positive")["forward_via_helper"]
    with pytest.raises(TypeError, match=re.escape(SHAPE_AS_TENSOR_CRASH)):
        explain(fn, *args)


def test_cr001_shape_as_tensor_is_a_torch_size_under_dynamo():
    """Scope note for the rule: the root cause is that _shape_as_tensor yields a torch.Size while
    tracing, so tensor methods on it crash too (AttributeError), not only stack/cat."""

    def method_on_shape(x):
        return torch._shape_as_tensor(x).prod()

    method_on_shape(torch.randn(2, 3))
    with pytest.raises(AttributeError, match="'torch.Size' object has no attribute 'prod'"):
        compile_eager(method_on_shape)(torch.randn(2, 3))


@pytest.mark.filterwarnings("ignore:To copy construct from a tensor")
def test_cr001_tensor_method_on_shape_as_tensor_crashes_under_compile():
    positive = load_corpus("CR001", "positive")
    x = torch.randn(1, 3, 8, 8)
    unwrap(positive.pixel_count)(x)  # eager is fine
    with pytest.raises(Exception, match=r"'torch.Size' object has no attribute 'prod'"):
        positive.pixel_count(x)


@pytest.mark.parametrize("code,name,case", case_params("CR001", "negative"))
def test_cr001_negative_compiles_without_crash(code, name, case):
    fn, args = corpus_cases(code, name)[case]
    eager_out = unwrap(fn)(*args)
    compiled_out = compile_eager(fn)(*args)
    assert type(compiled_out) is type(eager_out)
    assert_only_deliberate_breaks(explain(fn, *args))


# --------------------------------------------------------------------------------------------
# CR002 export-only-guard


def test_cr002_predicates_seen_inside_torch_compile():
    def predicates(x):
        return x + 1, (
            torch.jit.is_tracing(),
            torch.onnx.is_in_onnx_export(),
            torch.compiler.is_compiling(),
            torch.compiler.is_exporting(),
        )

    _, (tracing, onnx_export, compiling, exporting) = compile_eager(predicates)(torch.ones(2))
    assert (tracing, onnx_export, compiling) == (False, False, True)
    if TORCH_VERSION >= (2, 9):
        # Measured on 2.9.1 and 2.11: is_exporting() is True inside a plain torch.compile, so an
        # is_exporting-only guard takes the export branch there (and hides the fallback's crash).
        assert exporting is True
    # Eagerly every predicate is False.
    assert not torch.compiler.is_exporting() and not torch.jit.is_tracing()


@pytest.mark.parametrize("case", ["jit_is_tracing", "onnx_is_in_onnx_export"])
def test_cr002_tracing_guards_fall_through_to_the_crash(case):
    fn, args = corpus_cases("CR002", "positive")[case]
    unwrap(fn)(*args)
    with pytest.raises(TypeError, match=re.escape(SHAPE_AS_TENSOR_CRASH)):
        compile_eager(fn)(*args)


def test_cr002_inverted_guard_runs_the_breaking_fallback():
    fn, args = corpus_cases("CR002", "positive")["not_jit_is_tracing"]
    found = reasons(explain(fn, *args))
    assert found and any("Data dependent operator" in r for r in found), found


@pytest.mark.skipif(TORCH_VERSION < (2, 9), reason="is_exporting() is True under compile only on 2.9+")
@pytest.mark.parametrize("case", ["compiler_is_exporting", "getattr_is_exporting"])
def test_cr002_is_exporting_guard_hides_the_crash_on_this_torch(case):
    """Same source, version-dependent outcome: fine here, crashes where is_exporting is absent/False."""
    fn, args = corpus_cases("CR002", "positive")[case]
    compile_eager(fn)(*args)
    assert not reasons(explain(fn, *args))


@pytest.mark.skipif(TORCH_VERSION >= (2, 7), reason="needs a torch without torch.compiler.is_exporting (< 2.7)")
def test_cr002_getattr_guard_falls_through_where_is_exporting_is_missing():
    """The other half of the version story: the getattr fallback returns False, the crashing branch
    is traced. Run with an old interpreter: `/path/to/torch-2.4/bin/python -m pytest -k getattr_guard`."""
    fn, args = corpus_cases("CR002", "positive")["getattr_is_exporting"]
    unwrap(fn)(*args)
    # torch 2.2 words the same crash "... but got tuple" (a torch.Size is a tuple).
    with pytest.raises(Exception, match=r"expected Tensor as element 0 in argument 0, but got (torch\.Size|tuple)"):
        compile_eager(fn)(*args)


@pytest.mark.parametrize("code,name,case", case_params("CR002", "negative"))
def test_cr002_negative_guards_compile_with_no_break(code, name, case):
    fn, args = corpus_cases(code, name)[case]
    unwrap(fn)(*args)
    compile_eager(fn)(*args)
    assert not reasons(explain(fn, *args))


# --------------------------------------------------------------------------------------------
# BR001 tensor-truthiness-branch


@pytest.mark.parametrize("code,name,case", case_params("BR001", "positive"))
def test_br001_positive_breaks_on_data_dependent_branch(code, name, case):
    fn, args = corpus_cases(code, name)[case]
    # Not graph_break_count: for the while-loop case it reads 0 on Python 3.12 (graph_count - 1).
    # `all(t)` jumps inside Dynamo's inlined version of the builtin, reported by the break's type
    # rather than as `generic_jump` (torch >= 2.8: its registry type; before: "Dynamic control flow").
    found = reasons(explain(fn, *args))
    jumps = ("generic_jump", "Data-dependent branching", "Dynamic control flow is not supported")
    assert any(r.startswith(jumps) for r in found), found
    torch._dynamo.reset()
    # A case may draw random values (`uniform_`): the compiled and the eager run start from the
    # same seed, or their branches (and outputs) may differ.
    torch.manual_seed(0)
    with graph_break_log() as log:
        compiled_out = compile_eager(fn)(*args)
    # The graph-break log names the registry's type from torch 2.8 on; before, explain()'s reason
    # above ("generic_jump ...") is the only wording.
    if TORCH_VERSION >= (2, 8):
        assert any("Data-dependent branching" in line for line in log), log
    torch.manual_seed(0)
    torch.testing.assert_close(compiled_out, unwrap(fn)(*args))


@pytest.mark.parametrize("case", list(load_corpus("BR001", "positive").loop_cases()))
def test_br001_in_a_loop_body_skips_the_whole_frame(case):
    # Dynamo cannot resume mid-loop after a data-dependent jump: no graph at all, the function
    # runs eagerly (explain() finds 0 graphs; a break outside a loop gives 2).
    fn, args = load_corpus("BR001", "positive").loop_cases()[case]
    explanation = explain(fn, *args)
    assert explanation.graph_count == 0, explanation
    torch._dynamo.reset()
    torch.testing.assert_close(compile_eager(fn)(*args), unwrap(fn)(*args))


def test_br001_after_a_frame_skip_later_hazards_of_the_frame_are_not_traced():
    # Why scan reports one finding for two loop branches of one frame (`scan/merge.rs`): Dynamo
    # gives up on the frame at the first, so the second is never reached while tracing: no graph,
    # no break reason at all (a graph break, by contrast, resumes and the later breaks are real).
    fn, args = load_corpus("BR001", "positive").loop_cases()["two_loops_in_one_frame"]
    explanation = explain(fn, *args)
    assert explanation.graph_count == 0 and not reasons(explanation), explanation


def test_br001_comprehension_if_clause_on_tensor_elements_breaks():
    # `[l for l, d in zip(layers, drop) if not d]` with `drop` a computed tensor: each `d` is a
    # 0-d tensor, and the clause branches on it. The break is at the clause on every torch
    # (2.11 says "Data-dependent branching"; 2.2/2.5 may word it as a break from user code inside
    # the comprehension); the same stack over Python bools compiles whole (the negative).
    fn, args = load_corpus("BR001", "positive").comprehension_cases()["if_clause_on_tensor_elements"]
    with graph_break_log() as log:
        found = reasons(explain(fn, *args))
    assert found, found
    text = "\n".join(found + log)
    assert "not d]" in text or "<listcomp>" in text, text


def test_br001_outside_a_loop_body_breaks_and_resumes():
    # The contrast for the loop message: the `while` test itself and a plain `if` resume.
    for case in ("while_norm", "if_any_and_helper_ternary"):
        fn, args = corpus_cases("BR001", "positive")[case]
        assert explain(fn, *args).graph_count >= 2, case


@pytest.mark.parametrize("code,name,case", case_params("BR001", "negative"))
def test_br001_negative_static_branches_do_not_break(code, name, case):
    fn, args = corpus_cases(code, name)[case]
    explanation = explain(fn, *args)
    assert not reasons(explanation)
    assert explanation.graph_count == 1


# --------------------------------------------------------------------------------------------
# SY002 device-to-host-read


@pytest.mark.parametrize(
    "case,expected_reason",
    [
        ("item_via_helper", "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
        ("float_of_tensor", "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
        ("bool_of_tensor", "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
        # `.tolist()` of an integer tensor; of a float tensor the reason is GB0109 instead.
        ("tolist_via_module_alias", "Data dependent operator"),
        # disable(recursive=False) skips only its own frame: the callee's .tolist() is traced.
        ("callee_of_frame_only_disable", "Data dependent operator"),
        # A host-built tensor still breaks (the message drops the sync claim).
        ("item_of_host_tensor", "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
        ("compiled_through_self_attribute", "Unsupported Tensor.item() call"),
        ("item_of_numpy_value", "Data dependent operator"),
        ("item_of_host_meshgrid", "Unsupported Tensor.item() call"),
        # Device on one branch, host-built on the other: breaks either way (the message keeps
        # the sync).
        ("item_of_joined_scale", "Unsupported Tensor.item() call"),
        # A `self.state["offset"]` slot the file only fills on the host: breaks, no sync claimed.
        ("item_of_host_state_slot", "Unsupported Tensor.item() call"),
        ("item_of_device_state_slot", "Unsupported Tensor.item() call"),
        # A comprehension over a tensor binds 0-d tensors.
        ("int_in_comprehension_over_tensor", "Unsupported Tensor.item() call"),
        # A parameter a traced call gives a tensor.
        ("int_of_a_parameter_given_a_tensor", "Unsupported Tensor.item() call"),
    ],
)
def test_sy002_host_reads_break_the_graph(case, expected_reason):
    fn, args = corpus_cases("SY002", "positive")[case]
    found = reasons(explain(fn, *args))
    assert any(expected_reason in r for r in found), found


def test_sy002_numpy_is_traced_without_a_break():
    # `.numpy()` needs the value on the host, but Dynamo traces it (numpy becomes traced tensor
    # ops): one graph, no break (measured on torch 2.2 and 2.11).
    module = load_corpus("SY002", "positive").ExportScores()
    explanation = explain(module, torch.rand(6))
    assert not reasons(explanation) and explanation.graph_count == 1


def test_roots_default_flags_are_not_traced():
    # corpus/roots/profiled.py: called with its input only, the flag-gated reads never run.
    spec = importlib.util.spec_from_file_location(
        "_graphbreak_roots_profiled", REPO / "corpus" / "roots" / "profiled.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    explanation = explain(module.ProfiledNet(), torch.randn(4, 4))
    assert not reasons(explanation) and explanation.graph_count == 1
    # ... and where a caller sets the flag, the read is traced and breaks.
    found = reasons(explain(module.Augmented(), torch.randn(4, 4)))
    assert any("Tensor.item()" in r for r in found), found


def load_roots_fixture(name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"_graphbreak_roots_{name}", REPO / "corpus" / "roots" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_roots_caller_context_decides_callee_branches():
    # corpus/roots/context.py: Dynamo specializes on the constants and on `self.merged`, so the
    # branches no traced call takes (the warning, the unknown pool type, `child=True`) never run.
    module = load_roots_fixture("context")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        explanation = explain(module.ContextNet(), torch.randn(2, 4))
    assert not reasons(explanation) and explanation.graph_count == 1
    # ... and where the calls pass other constants, those branches are traced and break.
    found = reasons(explain(module.LooseNet(), torch.randn(2, 4)))
    # `walk`, `visit`, `padded` (no dimension passed), `sized` (no tuple passed: `size is None`)
    # and the unknown pool type's message each read `.item()`.
    assert sum("Tensor.item()" in r for r in found) >= 5, found
    # The defaults forwarded along the chains: `deepcopy` and the tensor test in `_divide` run.
    assert any("deepcopy" in r for r in found), found
    assert any("generic_jump TensorVariable" in r for r in found), found


@pytest.mark.parametrize("case", ["cpu_copy", "cpu_of_joined_offset"])
def test_sy002_cpu_is_a_sync_not_a_break(case):
    fn, args = corpus_cases("SY002", "positive")[case]
    explanation = explain(fn, *args)
    assert not reasons(explanation) and explanation.graph_count == 1


@pytest.mark.parametrize("code,name,case", case_params("SY002", "negative"))
def test_sy002_negative_reads_stay_out_of_the_graph(code, name, case):
    fn, args = corpus_cases(code, name)[case]
    assert_only_deliberate_breaks(explain(fn, *args))


# --------------------------------------------------------------------------------------------
# SY001 blocking-host-to-device


def test_sy001_blocking_copy_is_invisible_to_explain():
    """Why SY001 is a static rule: the blocking copy traces without any graph break."""
    cases = corpus_cases("SY001", "positive", "cpu")
    for case in ("tensor_to_device", "as_tensor_to_non_blocking_false", "numpy_array_to_device"):
        fn, args = cases[case]
        explanation = explain(fn, *args)
        assert not reasons(explanation) and explanation.graph_count == 1, case


requires_cuda = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="SY001 sync proofs need a CUDA device (sync debug mode)"
)


@contextlib.contextmanager
def sync_debug_mode(mode: str):
    previous = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode(mode)
    try:
        yield
    finally:
        torch.cuda.set_sync_debug_mode(previous)


@requires_cuda
@pytest.mark.parametrize("code,name,case", case_params("SY001", "positive", "cpu"))
def test_sy001_blocking_copy_synchronizes(code, name, case):
    fn, args = corpus_cases(code, name, "cuda")[case]
    compiled = compile_eager(fn)
    compiled(*args)  # compile outside the sync check
    torch.cuda.synchronize()
    with sync_debug_mode("error"):
        with pytest.raises(RuntimeError, match="synchronizing"):
            unwrap(fn)(*args)
        with pytest.raises(RuntimeError, match="synchronizing"):
            compiled(*args)


@requires_cuda
@pytest.mark.parametrize("code,name,case", case_params("SY001", "negative", "cpu"))
def test_sy001_device_built_and_non_blocking_do_not_synchronize(code, name, case):
    fn, args = corpus_cases(code, name, "cuda")[case]
    compiled = compile_eager(fn)
    compiled(*args)
    torch.cuda.synchronize()
    with sync_debug_mode("error"):
        compiled(*args)  # compiled: the eager-only debug branch is skipped
        out = compiled(*args)
    torch.cuda.synchronize()
    assert out.is_cuda


class _CountTorchCalls(torch.overrides.TorchFunctionMode):
    def __init__(self, names):
        super().__init__()
        self.names, self.count = names, 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", None) in self.names:
            self.count += 1
        return func(*args, **(kwargs or {}))


def test_sy001_sy004_memoized_function_builds_once_per_arguments_not_per_call():
    negative = load_corpus("SY001", "negative")
    negative.position_table.cache_clear()
    negative.class_weights.cache_clear()
    model = negative.CachedPositions()
    x = torch.rand(2, 8)
    # Eager: the host factory and torch.tensor run on the first call only (one cache entry).
    with _CountTorchCalls({"arange", "tensor"}) as counter:
        for _ in range(3):
            model(x)
    assert counter.count == 2
    # Compiled: Dynamo does not keep the cache, it traces the body into the graph (and says so);
    # the per-call cost there is Inductor's to fold, not an eager per-call copy.
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = torch.compile(model, backend="eager")(x)
    torch.testing.assert_close(out, model(x))
    assert any("lru_cache" in str(w.message) and "traces the wrapped" in str(w.message) for w in caught)


def count_syncs(fn, *args) -> int:
    """Synchronizing CUDA calls made by one call of fn (sync debug mode "warn" counts them)."""
    torch.cuda.synchronize()
    with warnings_recorded() as caught, sync_debug_mode("warn"):
        fn(*args)
    return sum("called a synchronizing CUDA operation" in str(w.message) for w in caught)


@contextlib.contextmanager
def warnings_recorded():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def host_list_to_device(x):
    return x * torch.tensor([1.0, 2.0, 3.0, 4.0]).to(x.device)


def host_array_to_device(x, array):
    return x * torch.from_numpy(array).to(x.device)


def host_list_with_device_kwarg(x):
    return x * torch.tensor([1.0, 2.0, 3.0, 4.0], device=x.device)


@requires_cuda
def test_sy001_scope_on_this_torch():
    """Scope facts for SY001 (measured on an H200, torch 2.11):
    - torch.tensor(list, device=cuda) synchronizes exactly like torch.tensor(list).to(cuda), so
      "build it on the device" with torch.tensor(..., device=) is not a fix; device fills are.
    - Inductor folds a constant host tensor into the compiled graph: no sync there; eager and
      backend="eager" keep the sync."""
    x = torch.rand(2, 4, device="cuda")
    for fn in (host_list_to_device, host_list_with_device_kwarg):
        fn(x)
        assert count_syncs(fn, x) == 1, fn.__name__
        compiled = compile_eager(fn)
        compiled(x)
        assert count_syncs(compiled, x) == 1, fn.__name__
    assert count_syncs(lambda t: t * torch.full((4,), 2.0, device=t.device), x) == 0
    torch._dynamo.reset()
    inductor = torch.compile(host_list_to_device, backend="inductor")
    inductor(x)
    assert count_syncs(inductor, x) == 0
    # Only a constant is folded: a host array from outside the graph is a graph input, and the
    # compiled function still copies it with one blocking copy per call (measured: host held).
    torch._dynamo.reset()
    array = torch.rand(2, 4).numpy()
    wrapped = torch.compile(host_array_to_device, backend="inductor")
    wrapped(x, array)
    # reset() dropped `inductor`'s compiled code too: compile it again before timing it, or the
    # timed call below measures a recompile (it did: 89 ms on an H200), not the folded constant.
    inductor(x)
    torch.cuda.synchronize()
    torch.cuda._sleep(100_000_000)
    start = time.perf_counter()
    wrapped(x, array)
    held = time.perf_counter() - start
    torch.cuda.synchronize()
    torch.cuda._sleep(100_000_000)
    start = time.perf_counter()
    inductor(x)
    folded = time.perf_counter() - start
    torch.cuda.synchronize()
    assert held > 4 * folded


# --------------------------------------------------------------------------------------------
# CF001 suppress-errors


def failing_backend(gm, example_inputs):
    raise RuntimeError("backend exploded on purpose")


def sine_plus_one(x):
    return torch.sin(x) + 1


def test_cf001_suppress_errors_hides_a_backend_failure():
    positive = load_corpus("CF001", "positive")
    negative = load_corpus("CF001", "negative")
    x = torch.randn(5)

    # suppress_errors=False (strict): the backend failure surfaces.
    with pytest.raises(torch._dynamo.exc.BackendCompilerFailed, match="backend exploded on purpose"):
        negative.strict_compile(sine_plus_one, backend=failing_backend)(x)

    torch._dynamo.reset()
    # suppress_errors=True (the corpus function sets it): nothing raises and the frame runs
    # eagerly; the failure is not silent but only a WARNING log record ("WON'T CONVERT" with the
    # traceback, at default logging), which no exit status or test sees.
    records: list[logging.LogRecord] = []
    handler = logging.Handler(level=logging.DEBUG)
    handler.emit = records.append
    convert_frame_log = logging.getLogger("torch._dynamo.convert_frame")
    convert_frame_log.addHandler(handler)
    try:
        out = positive.compile_with_fallback(sine_plus_one, backend=failing_backend)(x)
    finally:
        convert_frame_log.removeHandler(handler)
    assert torch._dynamo.config.suppress_errors is True
    torch.testing.assert_close(out, sine_plus_one(x))
    warned = [r for r in records if r.levelno == logging.WARNING and "WON'T CONVERT" in r.getMessage()]
    assert warned, [r.getMessage()[:80] for r in records]
    # ... with the failure's traceback in the record.
    assert any("backend exploded on purpose" in logging.Formatter().format(r) for r in warned)


def test_cf001_module_alias_assignments_turn_on_the_real_switch():
    # configure_from_flags sets it through `import torch._dynamo as dynamo` and
    # `from torch._dynamo import config as dynamo_config`: both are the one config object, so each
    # marked line hides a backend failure like the fully qualified form.
    positive = load_corpus("CF001", "positive")
    x = torch.randn(5)
    for flags in ({"robust_compile": True}, {}):
        torch._dynamo.config.suppress_errors = False
        torch._dynamo.reset()
        positive.configure_from_flags(flags)
        assert torch._dynamo.config.suppress_errors is True, flags
        out = torch.compile(sine_plus_one, backend=failing_backend)(x)
        torch.testing.assert_close(out, sine_plus_one(x))


def test_cf001_suppress_errors_does_not_catch_user_code_errors():
    positive = load_corpus("CF001", "positive")
    fn, args = corpus_cases("CR001", "positive")["forward_via_helper"]
    with pytest.raises(TypeError, match=re.escape(SHAPE_AS_TENSOR_CRASH)):
        positive.run_compiled(fn, *args, backend="eager")
    torch._dynamo.reset()
    with pytest.raises(TypeError, match=re.escape(SHAPE_AS_TENSOR_CRASH)):
        positive.compile_with_fallback(fn, backend="eager")(*args)


# --------------------------------------------------------------------------------------------
# TS001 patched-torch-compile


def run_corpus_test(test_fn, **kwargs):
    """Call a corpus test function the way pytest would, with a real MonkeyPatch when it asks."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        if "monkeypatch" in test_fn.__code__.co_varnames[: test_fn.__code__.co_argcount]:
            kwargs["monkeypatch"] = monkeypatch
        test_fn(**kwargs)


def test_ts001_patched_tests_pass_with_a_model_that_cannot_compile():
    real_compile = torch.compile
    with pytest.raises(TypeError, match=re.escape(SHAPE_AS_TENSOR_CRASH)):
        compile_eager(CrashesUnderCompile())(torch.randn(3, 4))
    torch._dynamo.reset()

    positive = load_corpus("TS001", "positive")
    patched_tests = [getattr(positive, n) for n in dir(positive) if n.startswith("test_")]
    assert len(patched_tests) == 4
    for test_fn in patched_tests:
        # Every one passes although the model crashes under torch.compile: they never compile.
        run_corpus_test(test_fn, model_factory=CrashesUnderCompile)
    assert torch.compile is real_compile  # the patches were undone


def test_ts001_real_compile_tests_catch_the_crash():
    negative = load_corpus("TS001", "negative")
    real_tests = [getattr(negative, n) for n in dir(negative) if n.startswith("test_")]
    assert len(real_tests) == 3
    for test_fn in real_tests:
        run_corpus_test(test_fn)  # the healthy model passes
        torch._dynamo.reset()
        with pytest.raises(TypeError, match=re.escape(SHAPE_AS_TENSOR_CRASH)):
            run_corpus_test(test_fn, model_factory=CrashesUnderCompile)
        torch._dynamo.reset()


# --------------------------------------------------------------------------------------------
# VR001 api-newer-than-floor


def load_api_table() -> dict:
    with API_TABLE.open("rb") as f:
        return tomllib.load(f)["apis"]


def resolve(dotted: str):
    obj = importlib.import_module(dotted.split(".")[0])
    for part in dotted.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(f"{obj.__name__}.{part}")
    return obj


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def test_vr001_table_entries_exist_on_the_installed_torch():
    for api, entry in load_api_table().items():
        if version_tuple(entry["added"]) <= TORCH_VERSION:
            assert callable(resolve(api)), api


def test_vr001_table_entries_are_missing_below_their_version():
    """What VR001 warns about, shown on an old torch: each API newer than the installed one is absent."""
    newer = {api: e for api, e in load_api_table().items() if version_tuple(e["added"]) > TORCH_VERSION}
    if not newer:
        pytest.skip(f"no table entry is newer than torch {torch.__version__}: run with an older torch")
    for api in newer:
        with pytest.raises((AttributeError, ImportError)):
            resolve(api)


def test_vr001_positive_lines_use_apis_newer_than_the_floor():
    table = load_api_table()
    with (CORPUS_DIR / "VR001" / "pyproject.toml").open("rb") as f:
        requirement = tomllib.load(f)["project"]["dependencies"][0]
    floor = version_tuple(re.search(r"torch>=([\d.]+)", requirement).group(1))
    marked = [
        line
        for line in (CORPUS_DIR / "VR001" / "positive.py").read_text().splitlines()
        if line.rstrip().endswith("# expect: VR001")
    ]
    assert marked
    for line in marked:
        match = re.search(r"torch\.compiler\.(\w+)", line) or re.search(
            r"from torch\.compiler import (\w+)", line
        )
        api = f"torch.compiler.{match.group(1)}"
        assert version_tuple(table[api]["added"]) > floor, line


def test_vr001_positive_runs_on_this_torch_without_breaks():
    for fn, args in corpus_cases("VR001", "positive").values():
        fn(*args)
        assert not reasons(explain(fn, *args))


def test_vr001_negative_version_assert_runs_before_the_newer_api():
    # corpus/rules/VR001/negative.py: `_force_eager` (set_stance, torch 2.6) is called only after
    # `assert TORCH_2_6`: below 2.6 the assertion fails first, never an AttributeError.
    module = load_corpus("VR001", "negative")
    assert module.TORCH_2_6 == (TORCH_VERSION >= (2, 6))
    model = nn.Identity()
    if TORCH_VERSION < (2, 6):
        with pytest.raises(AssertionError):
            module.evaluate_eagerly(model, [torch.ones(1)])
    else:
        assert len(module.evaluate_eagerly(model, [torch.ones(1)])) == 1


# --------------------------------------------------------------------------------------------
# BR003 / BR004 on every torch (the GB-code proofs in test_recall_proofs.py need torch >= 2.8)

# A boolean mask that reaches the read from one branch of an `if`, one built by a torch factory
# with `dtype=torch.bool` and read after `...` / `:`, and a change of the warning filters: each
# breaks the graph on torch 2.2, 2.5, 2.8 and 2.11 (the break text differs; the count does not).
EVERY_TORCH_BREAKS = [
    ("BR003", "mask_assigned_on_one_branch"),
    ("BR003", "mask_from_bool_eye_after_ellipsis"),
    ("BR003", "mask_from_bool_new_ones_after_slice"),
    ("BR003", "mask_from_a_parameter_given_a_tensor"),
    ("BR003", "value_joined_from_a_tensor_and_a_tuple"),
    ("BR003", "none_on_one_path_tensor_on_the_other"),
    ("BR003", "parameter_tested_as_a_tensor"),
    ("BR003", "mask_passed_as_an_argument"),
    ("BR003", "mask_returned_by_a_project_function"),
    ("BR003", "mask_returned_through_a_wrapper"),
    ("BR003", "mask_reshaped_and_indexed"),
    ("BR003", "optional_mask_input"),
    ("BR003", "input_rebound_on_one_branch"),
    ("BR003", "input_unpacked_on_one_branch"),
    ("BR004", "warnings_filter_change"),
]


@pytest.mark.parametrize("code,case", EVERY_TORCH_BREAKS, ids=[f"{c}-{n}" for c, n in EVERY_TORCH_BREAKS])
def test_new_mask_kinds_and_warning_filters_break_on_every_torch(code, case):
    fn, args = corpus_cases(code, "positive")[case][:2]
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert reasons(explain(fn, *args))
    torch._dynamo.reset()


@pytest.mark.parametrize(
    "case",
    [
        "parameter_tested_as_a_tensor_given_none",
        "integer_indices_passed_as_an_argument",
        "host_flag_returned_to_an_int_argument",
    ],
)
def test_br003_parameters_given_no_mask_do_not_break_on_every_torch(case):
    fn, args = corpus_cases("BR003", "negative")[case]
    torch._dynamo.reset()
    assert not reasons(explain(fn, *args))
    torch._dynamo.reset()


def test_join_of_integer_indices_does_not_break_on_every_torch():
    fn, args = corpus_cases("BR003", "negative")["integer_indices_on_both_branches"]
    torch._dynamo.reset()
    assert not reasons(explain(fn, *args))
    torch._dynamo.reset()
