"""Runtime proofs for the causes the peer suite (PyTorch's own graph-break tests) found unflagged.

BR020 (class statement), BR006's `step_unsupported` and the higher-order-op bodies (`torch.cond`
branches, `torch.ops.higher_order.wrap`) Dynamo traces. Each corpus case runs under real
torch.compile (CPU, backend="eager"). Unlike test_recall_proofs.py these need no GB registry, so
they also run on the older torch venvs (2.2, 2.5, 2.8) the rules' ranges claim:
    /work/venvs/torch-2.5/bin/python -m pytest tests/python/test_peer_suite_proofs.py -q
"""

from __future__ import annotations

import importlib.util
import re
import sys
import warnings
from pathlib import Path

import pytest
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter
from torch._dynamo.utils import counters
from conftest import fullgraph_error, load_corpus, torch_version

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = REPO_ROOT / "corpus" / "rules"
TORCH_VERSION = torch_version()


def corpus_cases(code: str, name: str) -> dict:
    """The `cases()` of corpus/rules/<code>/<name>.py (conftest.load_corpus: its own package per test file)."""
    return load_corpus(code, name, "peer").cases()


def compile_once(fn, args) -> tuple[int, list[str]]:
    """(graphs Dynamo compiled, graph-break reasons it counted) for one call of `fn(*args)`."""
    torch._dynamo.reset()
    counters.clear()
    counter = CompileCounter()
    with torch._dynamo.config.patch(suppress_errors=False), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.compile(fn, backend=counter)(*args)
    reasons = [r.strip().splitlines()[0] for r in counters["graph_break"]]
    torch._dynamo.reset()
    return counter.frame_count, reasons



# --------------------------------------------------------------------------------------------
# BR020 class-statement-in-region


@pytest.mark.parametrize("case", list(corpus_cases("BR020", "positive")))
def test_br020_positive_class_statement_is_not_traced(case):
    fn, args = corpus_cases("BR020", "positive")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, exc
    graphs, reasons = compile_once(fn, args)
    if TORCH_VERSION >= (2, 11):
        # the graph breaks at the statement (in forward: a graph before it and one after it)
        assert "Attempted to call function marked as skipped" in reasons, reasons
        if case == "class_in_forward":
            assert graphs == 2, graphs
    else:
        # 2.2 / 2.5 / 2.8: LOAD_BUILD_CLASS is missing; Dynamo gives up on the frame holding
        # the statement (forward: no graph at all; a callee: the caller breaks at the call)
        if case == "class_in_forward":
            assert graphs == 0, (graphs, reasons)
        else:
            assert any("LOAD_BUILD_CLASS" in r for r in reasons), reasons


@pytest.mark.parametrize("case", list(corpus_cases("BR020", "negative")))
def test_br020_negative_compiles_whole(case):
    fn, args = corpus_cases("BR020", "negative")[case]
    assert fullgraph_error(fn, args) is None
    assert compile_once(fn, args) == (1, [])


# --------------------------------------------------------------------------------------------
# BR014 argument-probe-call


@pytest.mark.parametrize("case", list(corpus_cases("BR014", "positive")))
def test_br014_positive_unbound_arguments_are_refused_not_raised(case):
    fn, args = corpus_cases("BR014", "positive")[case]
    # Dynamo does not turn the failed binding into a TypeError for the handler: it refuses the
    # call (2.11: "failed to bind arguments when attempting to inline"; 2.2-2.8: ArgsMismatchError).
    exc = fullgraph_error(fn, args)
    assert exc is not None, case
    assert "failed to bind arguments" in str(exc) or type(exc).__name__ == "ArgsMismatchError", exc
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = torch.compile(fn, backend="eager")(*args)
    torch.testing.assert_close(compiled, fn(*args))


@pytest.mark.parametrize("case", list(corpus_cases("BR014", "negative")))
def test_br014_negative_compiles_whole(case):
    fn, args = corpus_cases("BR014", "negative")[case]
    if case == "torch_signature_probe" and TORCH_VERSION < (2, 4):
        # torch.is_autocast_enabled takes no device before 2.4: the C function rejects the
        # argument while Dynamo evaluates it (an internal error, another hazard), never the
        # inliner's bind refusal this rule is about.
        exc = fullgraph_error(fn, args)
        assert exc is not None and "failed to bind" not in str(exc), exc
        assert type(exc).__name__ != "ArgsMismatchError", exc
        return
    assert fullgraph_error(fn, args) is None
    assert compile_once(fn, args) == (1, [])


# --------------------------------------------------------------------------------------------
# BR006: torch._dynamo.step_unsupported (torch >= 2.11)


def br006_corpus():
    corpus_cases("BR006", "positive")  # imports the module
    return sys.modules["_graphbreak_peer_BR006.positive"]


def break_line(fn) -> int:
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, s in enumerate(lines) if "graph_break()" in s or "step_unsupported()" in s)


@pytest.mark.skipif(
    not hasattr(torch._dynamo, "step_unsupported"), reason="step_unsupported is new in torch 2.11"
)
def test_br006_step_unsupported_breaks_the_graph():
    stepped = br006_corpus().stepped
    fn = getattr(stepped, "_torchdynamo_orig_callable", stepped)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(fn)(torch.ones(3))
    torch._dynamo.reset()
    reasons = [str(r.reason) for r in explained.break_reasons]
    assert any("step_unsupported" in r for r in reasons), reasons


def test_br006_comptime_graph_break_breaks_the_graph_at_its_line():
    comptime_break = br006_corpus().comptime_break
    fn = getattr(comptime_break, "_torchdynamo_orig_callable", comptime_break)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(fn)(torch.ones(3))
    torch._dynamo.reset()
    assert explained.graph_break_count == 1, explained.break_reasons
    import inspect

    lines, start = inspect.getsourcelines(fn)
    expected = start + next(i for i, s in enumerate(lines) if "comptime.graph_break()" in s)
    frames = [f for r in explained.break_reasons for f in r.user_stack]
    assert any(f.lineno == expected for f in frames), [(f.filename, f.lineno) for f in frames]


def test_br006_comptime_decorator_breaks_at_the_decorator_line():
    """`@comptime def _(tracer): tracer.graph_break()`: Dynamo runs the function at the decorator
    while tracing and reports the break there (the scan's finding line), whatever the first
    parameter is named; torch 2.2 to 2.11 ("ComptimeContext graph break" / ".graph_break")."""
    import inspect

    module = br006_corpus()
    fn = getattr(module.comptime_decorated_break, "_torchdynamo_orig_callable", None)
    fn = fn or module.comptime_decorated_break
    torch._dynamo.reset()
    explained = torch._dynamo.explain(fn)(torch.ones(3))
    torch._dynamo.reset()
    assert explained.graph_break_count == 1, explained.break_reasons
    assert all("ComptimeContext" in str(r.reason) for r in explained.break_reasons)
    lines, start = inspect.getsourcelines(fn)
    expected = start + next(i for i, s in enumerate(lines) if "@comptime" in s)
    frames = [f.lineno for r in explained.break_reasons for f in r.user_stack]
    assert expected in frames, (expected, frames)


def test_br006_comptime_body_without_graph_break_traces_whole():
    corpus_cases("BR006", "negative")
    module = sys.modules["_graphbreak_peer_BR006.negative"]
    fn = module.comptime_inspects_only
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    assert fullgraph_error(fn, (torch.randn(3),)) is None


# --------------------------------------------------------------------------------------------
# higher-order-op bodies (src/semantic/data.rs hop_body_positions): a break inside a
# torch.cond branch or a wrap body fails the whole op, and Dynamo names the body's line


@pytest.mark.parametrize(
    "caller, body",
    [("branch_on_sign", "positive_branch"), ("wrapped", "wrapped_body")],
)
def test_break_in_higher_order_op_body(caller, body):
    module = br006_corpus()
    root = getattr(module, caller)
    fn = getattr(root, "_torchdynamo_orig_callable", root)
    line = break_line(getattr(module, body))
    if caller == "wrapped" and TORCH_VERSION < (2, 8):
        pytest.skip("torch.ops.higher_order.wrap is not public before torch 2.8")
    exc = fullgraph_error(fn, (torch.randn(3),))
    assert exc is not None
    if TORCH_VERSION >= (2, 11):
        # Dynamo's message names the body's line (the user frame of the break)
        assert f"line {line}" in str(exc), str(exc)[-2000:]
    if caller == "branch_on_sign":
        # without fullgraph a cond still fails to capture: it cannot be split around the break
        with pytest.raises(Exception) as info:
            compile_once(fn, (torch.randn(3),))
        assert "Cond" in str(info.value) or "higher order" in str(info.value), info.value


# --------------------------------------------------------------------------------------------
# BR008: Dynamo reports a checkpointed side effect at the write (torch >= 2.5)


@pytest.mark.skipif(TORCH_VERSION < (2, 5), reason="torch 2.2 names the checkpoint call instead")
@pytest.mark.parametrize("case", list(corpus_cases("BR008", "positive")))
def test_br008_break_is_reported_at_the_write(case):
    fn, args = corpus_cases("BR008", "positive")[case]
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    source = CORPUS_DIR / "BR008" / "positive.py"
    expected = [
        n for n, line in enumerate(source.read_text().splitlines(), 1) if "# expect: BR008" in line
    ]
    exc = fullgraph_error(fn, args)
    assert exc is not None
    frames = [int(n) for n in re.findall(r'positive.py", line (\d+)', str(exc))]
    assert frames and frames[-1] in expected, (frames, expected)


# --------------------------------------------------------------------------------------------
# implicit dunder calls (src/semantic/model/dunder.rs): `obj.attr = v`, `obj[k]`, `a != b` run
# the class's __setattr__ / __getitem__ / __ne__ (object's default inverts __eq__); Dynamo
# inlines them and reports a break inside at the dunder's own line


@pytest.mark.parametrize(
    "caller, dunder",
    [
        ("records", "Recorder.__setattr__"),
        ("looks_up", "Table.__getitem__"),
        ("compares", "Tag.__eq__"),
    ],
)
def test_break_in_implicitly_called_dunder(caller, dunder):
    module = br006_corpus()
    root = getattr(module, caller)
    fn = getattr(root, "_torchdynamo_orig_callable", root)
    owner, method = dunder.split(".")
    line = break_line(getattr(getattr(module, owner), method))
    exc = fullgraph_error(fn, (torch.randn(3),))
    if caller == "compares" and TORCH_VERSION < (2, 8):
        # before torch 2.8 Dynamo does not trace a user __ne__/__eq__ for `!=`: no break at
        # the dunder (2.5 compiles it whole; 2.2 fails internally, InternalTorchDynamoError)
        assert exc is None or "Unsupported" not in type(exc).__name__, exc
        return
    assert exc is not None and "Unsupported" in type(exc).__name__, exc
    if caller == "records" and TORCH_VERSION < (2, 5):
        # torch 2.2 refuses to build an instance of a class with its own __setattr__: it breaks
        # at the store's line instead of inside __setattr__ (a break either way)
        return
    frames = [int(n) for n in re.findall(r'positive.py", line (\d+)', str(exc))]
    assert frames and frames[-1] == line, (frames, line, str(exc)[-1500:])
    graphs, reasons = compile_once(fn, (torch.randn(3),))
    assert reasons, reasons


def test_syntax_on_a_class_without_dunders_calls_nothing():
    corpus_cases("BR006", "negative")
    module = sys.modules["_graphbreak_peer_BR006.negative"]
    fn = getattr(module.plain_syntax, "_torchdynamo_orig_callable", module.plain_syntax)
    assert fullgraph_error(fn, (torch.randn(3),)) is None


# --------------------------------------------------------------------------------------------
# BR021 check-message-not-extractable (torch 2.11: GB0288)


@pytest.mark.skipif(TORCH_VERSION < (2, 11), reason="GB0288's message check is new in torch 2.11")
@pytest.mark.parametrize("case", list(corpus_cases("BR021", "positive")))
def test_br021_positive_message_stops_dynamo(case):
    fn, args = corpus_cases("BR021", "positive")[case]
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Can't extract message from torch._check()" in str(exc), exc
    graphs, reasons = compile_once(fn, args)
    assert any("Can't extract message" in r for r in reasons), reasons


@pytest.mark.skipif(TORCH_VERSION < (2, 11), reason="GB0288's message check is new in torch 2.11")
@pytest.mark.parametrize("case", list(corpus_cases("BR021", "negative")))
def test_br021_negative_message_is_kept(case):
    fn, args = corpus_cases("BR021", "negative")[case]
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    assert fullgraph_error(fn, args) is None


# --------------------------------------------------------------------------------------------
# BR022 ndarray-attribute-in-region (torch 2.8+: GB0157; 2.2/2.5: "TODO: add support for ndarray.X")


def ndarray_attribute_refused(text: str) -> bool:
    if TORCH_VERSION >= (2, 8):
        return "Unsupported ndarray attribute access" in text
    return re.search(r"TODO: add support for ndarray\.(dtype|base|flags)", text) is not None


@pytest.mark.parametrize("case", list(corpus_cases("BR022", "positive")))
def test_br022_positive_ndarray_attribute_breaks(case):
    fn, args = corpus_cases("BR022", "positive")[case]
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    exc = fullgraph_error(fn, args)
    if TORCH_VERSION[:2] == (2, 8) and case == "dtype_compared_in_generator":
        # 2.8 does not inline `any(<generator>)`: the same line breaks before the read
        assert exc is not None and "SKIPPED INLINING" in str(exc) and "any" in str(exc), exc
        return
    assert exc is not None and ndarray_attribute_refused(str(exc)), exc
    # Without fullgraph: a graph break at the read, or (nothing compiled before it in the frame)
    # Dynamo gives up on the frame — counted as "unimplemented" then, not "graph_break".
    torch._dynamo.reset()
    counters.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.compile(fn, backend=CompileCounter())(*args)
    reasons = list(counters["graph_break"]) + list(counters["unimplemented"])
    torch._dynamo.reset()
    assert any(ndarray_attribute_refused(r) for r in reasons), reasons


@pytest.mark.parametrize("case", list(corpus_cases("BR022", "negative")))
def test_br022_negative_compiles_whole(case):
    fn, args = corpus_cases("BR022", "negative")[case]
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    assert fullgraph_error(fn, args) is None


# --------------------------------------------------------------------------------------------
# BR023 tensor-to-string-in-region (2.11/2.8: GB0059 or GB9198; 2.2/2.5: the builtin str/repr)


def text_refused(text: str) -> bool:
    if TORCH_VERSION >= (2, 8):
        return (
            "Failed to trace builtin operator" in text
            or "Attempted to call repr() method implemented in C/C++" in text
        )
    return re.search(r"BuiltinVariable\((str|repr)\)|builtin: (str|repr) ", text) is not None


@pytest.mark.parametrize("case", list(corpus_cases("BR023", "positive")))
def test_br023_positive_tensor_text_breaks(case):
    fn, args = corpus_cases("BR023", "positive")[case]
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    exc = fullgraph_error(fn, args)
    assert exc is not None and text_refused(str(exc)), exc
    torch._dynamo.reset()
    counters.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.compile(fn, backend=CompileCounter())(*args)
    reasons = list(counters["graph_break"]) + list(counters["unimplemented"])
    torch._dynamo.reset()
    assert any(text_refused(r) for r in reasons), reasons


@pytest.mark.parametrize("case", list(corpus_cases("BR023", "negative")))
def test_br023_negative_compiles_whole(case):
    fn, args = corpus_cases("BR023", "negative")[case]
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    if TORCH_VERSION < (2, 5) and case == "f_string":
        # measured: on 2.2 fullgraph=True refuses the f-string of a tensor too (not flagged:
        # the rule's text says f-strings compile from 2.5 on)
        assert fullgraph_error(fn, args) is not None
        return
    assert fullgraph_error(fn, args) is None


# --------------------------------------------------------------------------------------------
# BR006 through the type flow: a disabled function passed in as an argument
# (corpus/typeflow/disabled_argument; flagged with --type-flow)


def test_disabled_function_argument_breaks_at_the_call():
    path = REPO_ROOT / "corpus" / "typeflow" / "disabled_argument" / "model.py"
    spec = importlib.util.spec_from_file_location("_graphbreak_peer_disabled_argument", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = module.apply._torchdynamo_orig_callable
    args = (module.eager_helper, torch.randn(3))
    graphs, reasons = compile_once(fn, args)
    if TORCH_VERSION >= (2, 8):
        expected = "Skip calling `torch.compiler.disable()`d function"
    else:
        expected = "call torch._dynamo.disable() wrapped function"
    assert any(expected in r for r in reasons), reasons
    assert graphs == 1, graphs  # the graph before the call; the disabled call runs eagerly
