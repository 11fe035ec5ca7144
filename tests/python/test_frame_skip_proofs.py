"""Proofs under real Dynamo of the frame skips scan folds (`src/scan/merge.rs`): a break Dynamo
cannot resume from — inside a `for`/`while` body or a `try` body, or reading an RNN module —
makes it skip the whole frame, so the later hazards of that function are never traced.

Version-independent on purpose (no GB registry): run it under each torch of the matrix
(2.2, 2.5, 2.8 and 2.11 measured: the same outcome on each, Python 3.11)."""

from __future__ import annotations

import contextlib
import inspect
import io
import sys
import types

import pytest
import torch
import torch._dynamo

from conftest import load_corpus as shared_load_corpus


def load_corpus(code: str, name: str) -> types.ModuleType:
    return shared_load_corpus(code, name, namespace="frame_skip")


def unwrap(fn):
    return getattr(fn, "_torchdynamo_orig_callable", fn)


def explain(fn, args):
    torch._dynamo.reset()
    with torch._dynamo.config.patch(suppress_errors=False), contextlib.redirect_stdout(io.StringIO()):
        explanation = torch._dynamo.explain(unwrap(fn))(*args)
    torch._dynamo.reset()
    return explanation


def frame_skip_params():
    for code in ("BR004", "SY002"):
        for case, entry in load_corpus(code, "positive").frame_skip_cases().items():
            yield pytest.param(code, case, entry, id=f"{code}-{case}")


@pytest.mark.parametrize("code,case,entry", frame_skip_params())
def test_a_break_in_a_loop_or_try_skips_the_frame_and_later_breaks_are_never_traced(code, case, entry):
    fn, args, skips = entry
    explanation = explain(fn, args)
    reasons = [r.reason for r in explanation.break_reasons]
    if skips:
        # No graph and no break reason: the first break gave up on the frame, the later ones
        # (a logger call, a tensor branch after the loop) were never reached while tracing.
        assert explanation.graph_count == 0 and not reasons, (case, explanation)
    else:
        # The contrast: the loop is not taken, so the break after it is traced and real.
        assert reasons, (case, explanation)
    # Eager semantics are kept either way.
    torch.testing.assert_close(torch.compile(unwrap(fn), backend="eager")(*args), unwrap(fn)(*args))


def test_an_rnn_method_in_a_try_skips_the_frame_so_the_later_call_is_never_traced():
    fn, args, _ = load_corpus("BR011", "positive").cases()["method_in_try"]
    explanation = explain(fn, args)
    assert explanation.graph_count == 0 and not explanation.break_reasons, explanation


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="PEP 709 inlines comprehensions on 3.12+")
def test_a_break_in_a_comprehension_resumes():
    # Why scan does not count a comprehension as a loop: on Python 3.11 its break resumes.
    def per_row_values(x):
        y = x * 2
        values = [t.item() for t in x]
        return y * len(values)

    explanation = explain(per_row_values, (torch.ones(3),))
    assert explanation.graph_count >= 1 and explanation.break_reasons, explanation


def callee_skip_params():
    for case, entry in load_corpus("BR004", "positive").callee_skip_cases().items():
        yield pytest.param(case, entry, id=case)


@pytest.mark.parametrize("case,entry", callee_skip_params())
def test_a_callee_that_breaks_inside_the_callers_loop_or_try_skips_the_callers_frame(case, entry):
    # The break happens at the call, in the caller's frame, where Dynamo cannot resume: the
    # caller runs eagerly (its later logger call is no break), while the callee is compiled as a
    # frame of its own and its break stays. When the callee does not break (a Python test it
    # does not take), the caller's later logger call is a real break.
    module, args, method, skips = entry
    caller = unwrap(getattr(module, method))
    code = getattr(caller, "__func__", caller).__code__
    lines, first = inspect.getsourcelines(code)
    caller_rows = range(first, first + len(lines))
    explanation = explain(module, args)
    frames = [r.user_stack[-1] for r in explanation.break_reasons if r.user_stack]
    in_caller = {
        f.lineno for f in frames if f.filename == code.co_filename and f.lineno in caller_rows
    }
    later = first + next(i for i, line in enumerate(lines) if 'logger.info("refined' in line)
    earlier = [first + i for i, line in enumerate(lines) if 'logger.info("refining' in line]
    if skips:
        # Breaks happened (the callee's), but none at the caller's later logger call.
        assert frames and later not in in_caller, (case, in_caller, explanation)
    else:
        assert later in in_caller, (case, in_caller, explanation)
    # A break of the caller before the loop is still a break.
    assert all(row in in_caller for row in earlier), (case, in_caller, explanation)
    torch.testing.assert_close(torch.compile(module, backend="eager")(*args), module(*args))


def context_manager_params():
    for case, entry in load_corpus("BR004", "positive").context_manager_skip_cases().items():
        yield pytest.param(case, entry, id=case)


@pytest.mark.parametrize("case,entry", context_manager_params())
def test_a_break_under_a_project_context_manager_skips_the_frame(case, entry):
    # A project context manager is a generic one to Dynamo: a break under it cannot resume, so
    # the later logger call is never traced (2.8+: 0 graphs; 2.2/2.5 break at the `with` of a
    # `@contextmanager` function, contextlib being skipped, and never trace the rest either).
    # Under `torch.no_grad()` the break resumes and the later call breaks on its own. The
    # standard library's context managers (`contextlib.suppress`, `warnings.catch_warnings`) are
    # generic ones too; `contextlib.nullcontext()` resumes like torch's own (prec10, torch 2.11).
    module, args, skips = entry
    code = type(module).forward.__code__
    lines, first = inspect.getsourcelines(code)
    later = first + next(i for i, line in enumerate(lines) if 'logger.info("refined' in line)
    explanation = explain(module, args)
    rows = {
        r.user_stack[-1].lineno
        for r in explanation.break_reasons
        if r.user_stack and r.user_stack[-1].filename == code.co_filename
    }
    if skips:
        assert later not in rows, (case, rows, explanation)
    else:
        assert later in rows, (case, rows, explanation)
    torch.testing.assert_close(torch.compile(module, backend="eager")(*args), module(*args))
