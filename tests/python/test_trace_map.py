"""The harness's trace map (`traced`) and runtime events on real Dynamo: Dynamo's `trace_source` log read
through a logging handler. Expected lines come from `# LINE: name` markers in corpus/cases/cross_check.py."""

import json
import os
import subprocess
import sys
from pathlib import Path

from test_harness import marker_line, run_harness

CASES = Path(__file__).resolve().parents[2] / "corpus" / "cases"
CROSS_CHECK = str(CASES / "cross_check.py")


def test_trace_map_holds_inlined_and_resumed_lines_and_not_the_branch_never_taken(tmp_path):
    result = run_harness(tmp_path, "cross_check.py", "case_inlined_helper_then_break")
    assert result["status"] == "ok", result["error"]
    traced = result["traced"]
    assert list(traced) == [CROSS_CHECK], "only the user's file, never torch's: %s" % list(traced)
    lines = traced[CROSS_CHECK]
    assert lines == sorted(set(lines))
    for name in ("inlined", "break", "resumed"):
        assert marker_line("cross_check.py", name) in lines, (name, lines)
    assert marker_line("cross_check.py", "not_taken") not in lines
    break_line = marker_line("cross_check.py", "break")
    events = result["runtime_events"]
    assert [(e["kind"], e["filename"], e["line"], e["count"]) for e in events] == [
        ("break", CROSS_CHECK, break_line, 1)
    ], events
    # The trace_source records are captured, not printed: stderr stays free of TRACE lines.
    assert "TRACE starts_line" not in result["_stderr"]


def test_repeated_recompiles_at_one_guard_line_are_one_event(tmp_path):
    result = run_harness(tmp_path, "hazards.py", "case_attribute_recompile")
    events = [e for e in result["runtime_events"] if e["kind"] == "recompile"]
    assert len(events) == 1, events
    assert events[0]["line"] == marker_line("hazards.py", "calls")
    assert events[0]["count"] == result["recompiles"] >= 2


def test_a_break_inside_a_loop_is_an_event_on_every_torch(tmp_path):
    """torch 2.2 skips the frame and logs it only at INFO; 2.11 logs the break. Both are the same event."""
    result = run_harness(tmp_path, "cross_check.py", "case_break_inside_loop")
    assert result["status"] == "ok", result["error"]
    line = marker_line("cross_check.py", "loop_branch")
    assert line in result["traced"][CROSS_CHECK]
    events = [(e["kind"], e["filename"], e["line"]) for e in result["runtime_events"]]
    assert ("break", CROSS_CHECK, line) in events, result["runtime_events"]


def test_build_inputs_survive_a_module_whose_getattr_raises(tmp_path):
    """A library's placeholder module for an optional add-on raises ImportError on any attribute read,
    `__file__` included; the modules imported beside it are still recorded, and stop() does not raise."""
    import types

    from graphbreak_harness.trace_map import BuildInputs

    real = tmp_path / "real_module_for_build_inputs.py"
    real.write_text("VALUE = 1\n")

    class Placeholder(types.ModuleType):
        def __getattr__(self, name):
            raise ImportError("optional add-on %r is not installed" % name)

    inputs = BuildInputs()
    inputs.start()
    try:
        sys.modules["placeholder_addon_for_build_inputs"] = Placeholder("placeholder_addon_for_build_inputs")
        sys.path.insert(0, str(tmp_path))
        __import__("real_module_for_build_inputs")
    finally:
        sys.path.remove(str(tmp_path))
        inputs.stop()
        sys.modules.pop("placeholder_addon_for_build_inputs", None)
        sys.modules.pop("real_module_for_build_inputs", None)
    assert os.path.abspath(str(real)) in inputs.imported
