"""Runtime proofs for reachability (src/semantic/model/references.rs): Dynamo traces the functions
a traced `forward` runs without naming them in a call — a property getter, a bound method kept in a
local, a function argument, a returned closure, a function stored on `self`, a parameter's function
default, an instance built as a parameter's default. corpus/reach/functions_as_values holds one graph break in each; every one must be among
the breaks Dynamo reports when it compiles `Net` (CPU, backend="eager"), at the lines
tests/reference_edges.rs expects scan to report.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
import torch
import torch._dynamo

FIXTURE = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "functions_as_values"

# (file, line) of the hazard in each function used as a value.
EXPECTED = {
    ("helpers.py", 5),  # identity, stored as self.act
    ("helpers.py", 9),  # keep_positive, a parameter's default stored as self.sample
    ("helpers.py", 13),  # squeeze_item, passed to apply_to
    ("helpers.py", 22),  # pack's nested unpack, returned and called
    ("helpers.py", 29),  # Criterion.__call__, an instance built as a parameter's default
    ("model.py", 30),  # the property getter self.scale
    ("model.py", 33),  # bounded, called through the local fn
}


def test_dynamo_breaks_in_every_function_used_as_a_value():
    sys.path.insert(0, str(FIXTURE))
    try:
        model = importlib.import_module("pkg.model")
    finally:
        sys.path.remove(str(FIXTURE))
    net, args = model.case_net()
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(net)(*args)
    seen = set()
    for reason in explanation.break_reasons:
        for frame in reason.user_stack:
            path = Path(frame.filename)
            if FIXTURE in path.parents:
                seen.add((path.name, frame.lineno))
    missing = EXPECTED - seen
    assert not missing, f"Dynamo did not break at {sorted(missing)}; breaks seen at {sorted(seen)}"


INHERITED = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "inherited_construction"


def _fixture_module(fixture: Path, module_name: str):
    """`module_name` of a corpus/reach fixture, imported afresh (every fixture names its package
    `pkg`, so an earlier fixture's modules are dropped first)."""
    sys.path.insert(0, str(fixture))
    try:
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]
        return importlib.import_module(module_name)
    finally:
        sys.path.remove(str(fixture))


def _breaks_in(fixture: Path, module_name: str, case: str) -> set[tuple[str, int]]:
    model = _fixture_module(fixture, module_name)
    net, args = getattr(model, case)()
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(net)(*args)
    return {
        (Path(frame.filename).name, frame.lineno)
        for reason in explanation.break_reasons
        for frame in reason.user_stack
        if fixture in Path(frame.filename).parents
    }


def test_dynamo_runs_modules_a_subclass_builds_through_the_inherited_forward_and_its_mixin():
    # tests/inherited_construction.rs: the base forward runs on the subclass and calls its blocks,
    # whose forward calls the mixin's method (blocks.py:8).
    seen = _breaks_in(INHERITED, "pkg.model", "case_tower")
    assert ("blocks.py", 8) in seen, f"breaks seen at {sorted(seen)}"


def test_dynamo_runs_the_children_of_a_sequential_subclass_without_forward():
    seen = _breaks_in(INHERITED, "pkg.model", "case_chain")
    assert ("blocks.py", 24) in seen, f"breaks seen at {sorted(seen)}"


def test_dynamo_runs_the_wrapper_a_project_decorator_returns():
    seen = _breaks_in(INHERITED, "pkg.model", "case_wrapped")
    assert ("wrappers.py", 5) in seen, f"breaks seen at {sorted(seen)}"


CROSS_FILE_RNN = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "cross_file_rnn"


def _refused(case: str, module: str = "pkg.model") -> tuple[list[str], int]:
    from torch._dynamo.utils import counters

    model = _fixture_module(CROSS_FILE_RNN, module)
    net, args = getattr(model, case)()
    torch._dynamo.reset()
    counters.clear()
    with torch._dynamo.config.patch(suppress_errors=False):
        explanation = torch._dynamo.explain(net)(*args)
    reasons = list(counters["unimplemented"])
    torch._dynamo.reset()
    return reasons, explanation.graph_count


def test_dynamo_refuses_a_project_rnn_subclass_from_another_file_and_runs_the_frame_eagerly():
    # tests/cross_file_classes.rs: BR011 at model.py:15 (`self.rnn(...)`, `Lstm` from pkg.layers).
    reasons, graphs = _refused("case_encoder")
    assert any("Attempted to wrap RNN, GRU, or LSTM" in r for r in reasons), reasons
    assert graphs == 0


def test_dynamo_traces_a_project_subclass_of_a_wrapped_module_whole():
    reasons, graphs = _refused("case_gated")
    assert reasons == [] and graphs == 1, (reasons, graphs)


def test_dynamo_never_runs_a_base_method_every_built_subclass_overrides():
    # heads.py:11 (a tensor branch in the base `score`) never runs: Dynamo compiles the scorer
    # whole. (scan still reaches it: e1e19ac's fix was redone and reverted again, it cost >3x CPU
    # on a rooted scan of a large tree.)
    heads = _fixture_module(INHERITED, "pkg.heads")
    net, args = heads.case_scorer()
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(net)(*args)
    assert explanation.graph_break_count == 0 and explanation.graph_count == 1


def test_dynamo_refuses_an_rnn_class_an_imported_helper_picked_through_a_local():
    # tests/cross_file_classes.rs: BR011 at picked.py:15 (`self.rnn(...)`, class from `pick_cell`).
    reasons, graphs = _refused("case_picked_encoder", "pkg.picked")
    assert any("Attempted to wrap RNN, GRU, or LSTM" in r for r in reasons), reasons
    assert graphs == 0


def test_dynamo_refuses_the_rnn_classes_picked_through_a_narrowed_parameter():
    # picked.py:36 (`pick_known`, issubclass) and :47 (`pick_kept`, isinstance) are reported.
    for case in ("case_known_encoder", "case_kept_encoder"):
        reasons, graphs = _refused(case, "pkg.picked")
        assert any("Attempted to wrap RNN, GRU, or LSTM" in r for r in reasons), (case, reasons)
        assert graphs == 0, case


def test_dynamo_traces_a_class_a_helper_returned_from_its_parameter_whole():
    # picked.py:26 is not reported: `pick_layer` handed back the caller's `nn.Linear`.
    reasons, graphs = _refused("case_picked_layer", "pkg.picked")
    assert reasons == [] and graphs == 1, (reasons, graphs)



OBJECT_MODEL = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "object_model"

# Per Module of pkg/model.py: the values.py lines Dynamo breaks at (tests/object_model.rs expects
# scan to report the same lines, and nothing at values.py:17 in `__matmul__`).
OBJECT_MODEL_BREAKS = {
    "Add": {("values.py", 13)},  # __add__
    "MatMul": {("model.py", 25)},  # `v @ v` itself: __matmul__ is not traced on 2.11
    "Mul": {("values.py", 21)},  # __mul__
    "Neg": {("values.py", 25)},  # __neg__
    "Length": {("values.py", 29)},  # __len__
    "Iterate": {("values.py", 32)},  # __iter__
    "Within": {("values.py", 38), ("values.py", 42)},  # __enter__, __exit__
    "Configured": {("values.py", 51)},  # a dataclass's __post_init__
    "Built": {("values.py", 57)},  # __new__
    "Applied": {("values.py", 74)},  # Square.backward, traced with Square.apply
    "AppliedAlias": {("values.py", 74)},  # through `square = Square.apply`
    "Recorded": {("values.py", 84)},  # __setattr__, for `self.last = ...`
    "Boxed": {("values.py", 94)},  # a property getter read on a local instance
}


def _logged_breaks(fixture: Path, fn, args) -> set[tuple[str, int]]:
    """`(file, line)` of every graph break Dynamo logs in `fixture`'s files while compiling `fn`
    (backend="eager") and calling it on `args`. explain() reports nothing when a break in an
    operator's method makes Dynamo skip the frame (it cannot resume inside the operator); the
    graph-break log names every break."""
    return _breaks_while(fixture, lambda: torch.compile(fn, backend="eager")(*args))


def _breaks_while(fixture: Path, run) -> set[tuple[str, int]]:
    """`(file, line)` of every graph break Dynamo logs in `fixture`'s files while `run()` runs."""
    import logging
    import re

    seen: set[tuple[str, int]] = set()

    class Breaks(logging.Handler):
        def emit(self, record):
            found = re.search(r"Graph break in user code at (\S+):(\d+)", record.getMessage())
            if found and fixture in Path(found.group(1)).parents:
                seen.add((Path(found.group(1)).name, int(found.group(2))))

    handler = Breaks()
    dynamo_log = logging.getLogger("torch._dynamo")
    torch._logging.set_logs(graph_breaks=True)
    dynamo_log.addHandler(handler)
    try:
        torch._dynamo.reset()
        run()
    finally:
        dynamo_log.removeHandler(handler)
        torch._logging.set_logs()
        torch._dynamo.reset()
    return seen


@pytest.mark.parametrize("case", sorted(OBJECT_MODEL_BREAKS))
def test_dynamo_traces_the_methods_the_object_model_calls(case):
    model = _fixture_module(OBJECT_MODEL, "pkg.model")
    net, args = model.case(case)
    seen = _logged_breaks(OBJECT_MODEL, net, args)
    assert seen == OBJECT_MODEL_BREAKS[case], (case, sorted(seen))


def test_dynamo_runs_forward_through_a_modules_own_call_and_super_call():
    # tests/object_model.rs: calls.py:18 in `Shift.forward`, reached from `run` through
    # `Counted.__call__` → `super().__call__`.
    calls = _fixture_module(OBJECT_MODEL, "pkg.calls")
    fn, args = calls.case_run()
    seen = _logged_breaks(OBJECT_MODEL, fn, args)
    assert seen == {("calls.py", 18)}, sorted(seen)


CLASS_MEMBERS = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "class_members"

# Per Module of pkg/model.py: the flags.py lines Dynamo breaks at (tests/class_members.rs expects
# scan to report the same lines).
CLASS_MEMBER_BREAKS = {
    "ThroughModule": {("flags.py", 11)},  # flags.FastPath.level(): Switch.level, inherited
    "ThroughName": {("flags.py", 11)},  # FastPath.level() on the imported name
    "ThroughInstanceClass": {("flags.py", 16)},  # self.__class__._check_state in __enter__
}


@pytest.mark.parametrize("case", sorted(CLASS_MEMBER_BREAKS))
def test_dynamo_traces_inherited_members_called_on_a_class(case):
    model = _fixture_module(CLASS_MEMBERS, "pkg.model")
    net, args = model.case(case)
    seen = _logged_breaks(CLASS_MEMBERS, net, args)
    assert seen == CLASS_MEMBER_BREAKS[case], (case, sorted(seen))


STORED_CLOSURES = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "stored_closures"

# Per Module of pkg/model.py: the lines Dynamo breaks at (tests/stored_closures.rs expects scan to
# report the same lines, and nothing in helpers.unused_factory).
STORED_CLOSURE_BREAKS = {
    "WrappedInPlace": {("model.py", 19)},  # the wrapper self._counted returned, stored as self.step
    "AnnotatedWrap": {("model.py", 40)},  # the same through `self.step: object = ...`
    "FactoryClosure": {("helpers.py", 6)},  # make_gate's inner gate, stored as self.gate
    # base_schedule, a function default stored as self.schedule, called by the closure `shifted`
    # returned in its place
    "DefaultThenShifted": {("helpers.py", 20)},
}


@pytest.mark.parametrize("case", sorted(STORED_CLOSURE_BREAKS))
def test_dynamo_traces_closures_stored_from_a_call(case):
    model = _fixture_module(STORED_CLOSURES, "pkg.model")
    net, args = model.case(case)
    seen = _logged_breaks(STORED_CLOSURES, net, args)
    assert seen == STORED_CLOSURE_BREAKS[case], (case, sorted(seen))


FAILURE_PATHS = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "failure_paths"


def test_dynamo_traces_an_early_return_before_a_final_raise():
    # tests/failure_paths.rs: model.py:8 in smooth_step (returned before the final raise) is
    # reported; model.py:13 in describe (the raise's message) is not, and Dynamo never runs it.
    model = _fixture_module(FAILURE_PATHS, "pkg.model")
    net, args = model.case("Smooth")
    seen = _logged_breaks(FAILURE_PATHS, net, args)
    assert seen == {("model.py", 8)}, sorted(seen)


CLASS_DECORATORS = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "class_decorators"


def test_dynamo_traces_the_call_of_a_class_used_as_a_decorator():
    # tests/class_decorators.rs: wrap.py:11 in `counted.__call__`, run by calling `scale`.
    model = _fixture_module(CLASS_DECORATORS, "pkg.model")
    net, args = model.case("Scaled")
    seen = _logged_breaks(CLASS_DECORATORS, net, args)
    assert seen == {("wrap.py", 11)}, sorted(seen)


DYNAMO_ENTRY_POINTS = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "dynamo_entry_points"


def test_dynamo_optimize_compiles_what_it_is_applied_to():
    # tests/dynamo_entry_points.rs: steps.py:8 (torch._dynamo.optimize(...)(fn)) and steps.py:17
    # (@torch._dynamo.optimize(...)) break; steps.py:22, in a function nothing compiles, is plain
    # Python. The entry points scan knows (DYNAMO_COMPILE_DECORATORS) exist in this torch.
    for name in ("optimize", "optimize_assert"):
        assert callable(getattr(torch._dynamo, name)), name

    def run():
        steps = _fixture_module(DYNAMO_ENTRY_POINTS, "pkg.steps")
        steps.compiled_step(torch.ones(3))
        steps.decorated_step(torch.ones(3))
        steps.never_compiled(torch.ones(3))

    seen = _breaks_while(DYNAMO_ENTRY_POINTS, run)
    assert seen == {("steps.py", 8), ("steps.py", 17)}, sorted(seen)


TENSOR_ARGUMENTS = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "tensor_arguments"


def test_a_parameter_given_a_tensor_breaks_and_one_given_a_constant_does_not():
    # tests/tensor_arguments.rs: steps.py:9 (`if check:`, a tensor from the compiled call),
    # steps.py:29 (`if keep:`, a tensor the traced caller passes on) and steps.py:47 (`if factor
    # > 1:`, a tensor by keyword) break; steps.py:19 (`if use_bias:`, given True) and steps.py:61
    # (`isinstance(fill, list) and fill`, given a tensor) do not.
    seen = _breaks_while(TENSOR_ARGUMENTS, lambda: _fixture_module(TENSOR_ARGUMENTS, "pkg.steps"))
    assert seen == {("steps.py", 9), ("steps.py", 29), ("steps.py", 47)}, sorted(seen)

    # The same functions, given Python values where they were given tensors: no break at all.
    steps = _fixture_module(TENSOR_ARGUMENTS, "pkg.steps")

    def constants():
        torch.compile(steps.select, backend="eager")(torch.randn(4), True)
        torch._dynamo.optimize("eager")(steps.route)(torch.randn(4), False)
        steps.scaled(torch.randn(4), factor=2.0)

    assert _breaks_while(TENSOR_ARGUMENTS, constants) == set()


ENVIRONMENT_BASES = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "environment_bases"


def test_dynamo_traces_the_override_an_environment_base_calls():
    # tests/environment_bases.rs: model.py:10 in `Scorer.compute`, which the installed base's
    # `forward` calls through a mixin (`Runner.forward` -> `run_step` -> `self.compute`).
    # `Tally.compute` (model.py:19) is never compiled: its base is no Module.
    site = ENVIRONMENT_BASES / "env" / "lib" / "python3.12" / "site-packages"
    sys.path.insert(0, str(site))
    try:
        model = _fixture_module(ENVIRONMENT_BASES / "project", "pkg.model")
        assert isinstance(model.Scorer(), torch.nn.Module)
        assert not isinstance(model.Tally(), torch.nn.Module)
        net, args = model.case("Scorer")
        seen = _logged_breaks(ENVIRONMENT_BASES, net, args)
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m == "basedist" or m.startswith("basedist.")]:
            del sys.modules[name]
    assert seen == {("model.py", 10)}, sorted(seen)


COMPILED_CALL_SITE = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "compiled_call_site_params"


def _compiled_break_sites(fixture: Path, module_name: str, case: str) -> set[tuple[str, int]]:
    """Where Dynamo breaks when `torch.compile` runs the case, from its graph-break log ("Graph
    break in user code at FILE:LINE"). `torch._dynamo.explain` stops at the first break of a
    nested call here, so the compiled function itself is run."""
    import io
    import logging
    import re

    model = _fixture_module(fixture, module_name)
    fn, args = getattr(model, case)()
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    dynamo_log = logging.getLogger("torch._dynamo")
    torch._logging.set_logs(graph_breaks=True)
    dynamo_log.addHandler(handler)
    try:
        torch._dynamo.reset()
        torch.compile(fn, backend="eager")(*args)
    finally:
        dynamo_log.removeHandler(handler)
        torch._logging.set_logs()
    return {
        (Path(path).name, int(line))
        for path, line in re.findall(r"Graph break in user code at (\S+):(\d+)", buffer.getvalue())
        if fixture in Path(path).parents
    }


def test_dynamo_traces_what_a_compiled_call_site_passes_to_a_parameter():
    """corpus/reach/compiled_call_site_params: `step` is compiled and given a `Recorder` and the
    function `scale`; Dynamo breaks inside `Recorder.__setattr__` (run by `rec.last = y`),
    `Recorder.summary` and `scale` — the lines tests/compiled_call_site_params.rs expects scan to
    report — and never in `unused`, which no call site passes."""
    breaks = _compiled_break_sites(COMPILED_CALL_SITE, "pkg.steps", "case_step")
    assert {("parts.py", 8), ("parts.py", 12), ("parts.py", 17)} <= breaks, breaks
    assert ("parts.py", 21) not in breaks


ENCLOSING = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "enclosing_instances"


@pytest.mark.parametrize(
    "case, expected",
    [
        ("case_module_instance", {("state.py", 9), ("state.py", 13)}),
        ("case_closure_instance", {("state.py", 9)}),
    ],
)
def test_dynamo_runs_the_methods_of_an_instance_read_from_an_enclosing_scope(case, expected):
    """corpus/reach/enclosing_instances: a module-level instance and a closure variable; Dynamo
    breaks in `Store.__setattr__` (`obj.last = x`) and `Store.lookup`, the lines
    tests/compiled_call_site_params.rs expects scan to reach."""
    assert expected <= _compiled_break_sites(ENCLOSING, "pkg.state", case)
