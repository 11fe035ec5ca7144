"""Runtime proofs for BR032 (numpy-strings-in-region), BR031 (default-generator-call) and BR030 (compiled-call-argument-kind): a compiled function's parameter used in
a way Dynamo cannot trace for the kind of value its call site passes.

Each corpus case runs under real torch.compile (CPU, backend="eager", fullgraph=True). On torch
2.11 the error names the GB registry type the rule's message cites; on older torch (2.2, 2.5, 2.8,
where the registry's types did not exist or differ) the case must still be refused by Dynamo,
with the reason each version gives:
    /work/venvs/torch-2.5/bin/python -m pytest tests/python/test_call_site_kind_proofs.py -q
"""

from __future__ import annotations

import pytest
import torch  # noqa: F401 - without torch these proofs must fail to import, never skip
from conftest import fullgraph_error, load_corpus, torch_version

TORCH_VERSION = torch_version()


def corpus_cases(name: str, code: str = "BR030") -> dict:
    """The `cases()` of corpus/rules/<code>/<name>.py (conftest.load_corpus: its own package per test file)."""
    return load_corpus(code, name, "call_site").cases()



# What older torch says instead of 2.11's registry type (measured on 2.2, 2.5, 2.8).
OLDER_REASONS = {
    "zip_iterated": ("Unsupported method call", "__iter__", "BuiltinVariable(iter)", "builtin: list"),
    "items_iterated": ("Unsupported method call", "__iter__", "BuiltinVariable(iter)"),
    "constant_in_with": ("Unsupported context manager", "BEFORE_WITH"),
    "uninitialized_module": ("Uninitialized nn.Module", "uninitialized nn.Module", "_backward_hooks"),
    "disabled_called": ("torch.compiler.disable", "torch._dynamo.disable()"),
    "tensors_sorted": ("sort with non-constant keys", "sorted"),
    # 2.8: "Generator as graph argument is not supported"; 2.5 / 2.2: the generator is an opaque
    # user object (`__next__` / `__iter__` / `next` of UserDefinedObjectVariable(generator)).
    "generator_advanced": ("Generator as graph argument", "UserDefinedObjectVariable(generator)"),
    "generator_iterated": ("Generator as graph argument", "UserDefinedObjectVariable(generator)"),
    "no_grad_entered": ("Unsupported context manager", "BEFORE_WITH"),
    "own_context_entered": ("Unsupported context manager", "BEFORE_WITH"),
    "inherited_context_entered": ("Unsupported context manager", "BEFORE_WITH"),
    "contextmanager_entered": ("Unsupported context manager", "BEFORE_WITH"),
    "imported_contextmanager_entered": ("Unsupported context manager", "BEFORE_WITH"),
}


@pytest.mark.parametrize("case", list(corpus_cases("positive")))
def test_br030_positive_is_refused_by_dynamo(case):
    fn, args, gb_type = corpus_cases("positive")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None, case
    if TORCH_VERSION >= (2, 11):
        assert "Unsupported" in type(exc).__name__, exc
        assert gb_type in str(exc), (gb_type, str(exc)[:300])
    elif case == "uninitialized_module" and TORCH_VERSION < (2, 5):
        # 2.2: Dynamo fails inside its own module wrapper (an internal error, not a graph break
        # it resumes from): the frame is not compiled either way.
        assert "_backward_hooks" in str(exc), str(exc)[:300]
    else:
        assert "Unsupported" in type(exc).__name__, exc
        assert any(reason in str(exc) for reason in OLDER_REASONS[case]), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative")))
def test_br030_negative_compiles_whole(case):
    fn, args = corpus_cases("negative")[case]
    assert fullgraph_error(fn, args) is None


# --------------------------------------------------------------------------------------------
# BR031 default-generator-call


@pytest.mark.parametrize("case", list(corpus_cases("positive", "BR031")))
def test_br031_positive_generator_method_is_refused(case):
    fn, args = corpus_cases("positive", "BR031")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, exc
    if TORCH_VERSION >= (2, 8):
        assert "Unsupported method call" in str(exc), str(exc)[:300]
    elif TORCH_VERSION >= (2, 5):
        assert "UserDefinedObjectVariable(Generator)" in str(exc), str(exc)[:300]
    else:
        assert "Generator" in str(exc) or "non-Tensor" in str(exc), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative", "BR031")))
def test_br031_negative_compiles_whole(case):
    fn, args = corpus_cases("negative", "BR031")[case]
    assert fullgraph_error(fn, args) is None


# --------------------------------------------------------------------------------------------
# BR032 numpy-strings-in-region


@pytest.mark.parametrize("case", list(corpus_cases("positive", "BR032")))
def test_br032_positive_numpy_strings_are_refused(case):
    fn, args = corpus_cases("positive", "BR032")[case]
    exc = fullgraph_error(fn, args)
    assert exc is not None and "Unsupported" in type(exc).__name__, exc
    if TORCH_VERSION >= (2, 8):
        assert "UnsupportedFakeTensorException when running FX node" in str(exc), str(exc)[:300]
    else:
        assert "Wrapped function <original" in str(exc), str(exc)[:300]


@pytest.mark.parametrize("case", list(corpus_cases("negative", "BR032")))
def test_br032_negative_compiles_whole(case):
    fn, args = corpus_cases("negative", "BR032")[case]
    assert fullgraph_error(fn, args) is None
