"""Every entry of the torch knowledge tables (rules/data/*.toml) checked against the installed torch.

The scanner embeds these tables; a wrong entry is a wrong finding (or a missed one). Each test reads
a table and asks the real torch: does the method exist on torch.Tensor, is the dtype a dtype, is the
base class an nn.Module, does the predicate exist on this version and return the value the table
claims inside torch.compile (backend="eager", real Dynamo).
"""

from __future__ import annotations

import importlib
import logging
import subprocess
import sys
import tomllib

import numpy as np
import pytest
import torch
import torch._dynamo
from torch import nn

from conftest import REPO, resolve, torch_version

DATA = REPO / "rules" / "data"
TORCH_VERSION = torch_version()


def table(name: str) -> dict:
    return tomllib.loads((DATA / f"{name}.toml").read_text())


def version(text: str) -> tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


def in_range(spec: str, v: tuple[int, int]) -> bool:
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part.startswith(">="):
            if v < version(part[2:]):
                return False
        elif part.startswith("<"):
            if v >= version(part[1:]):
                return False
        else:
            raise ValueError(spec)
    return True


# --------------------------------------------------------------------------------------------
# predicates

PREDICATES = table("predicates")["predicate"]
TORCH_PREDICATES = [p for p in PREDICATES if not p.get("third_party")]


@pytest.mark.parametrize("entry", TORCH_PREDICATES, ids=lambda p: p["name"])
def test_predicate_exists_from_its_version(entry):
    assert "added" in entry, f"{entry['name']}: torch predicates say when they were added"
    if TORCH_VERSION < version(entry["added"]):
        with pytest.raises((ImportError, AttributeError)):
            resolve(entry["name"])
        return
    assert callable(resolve(entry["name"]))


@pytest.mark.parametrize("entry", TORCH_PREDICATES, ids=lambda p: p["name"])
def test_predicate_value_under_compile_is_the_claimed_one(entry):
    if TORCH_VERSION < version(entry["added"]):
        pytest.skip(f"{entry['name']} is not in torch {torch.__version__}")
    claims = [r["value"] for r in entry["under_compile"] if in_range(r["torch"], TORCH_VERSION)]
    assert len(claims) == 1, f"{entry['name']}: exactly one range covers {TORCH_VERSION}"
    predicate = resolve(entry["name"])
    seen = {}

    def probe(x):
        seen["value"] = bool(predicate())
        return x + 1

    torch._dynamo.reset()
    torch.compile(probe, backend="eager", fullgraph=True)(torch.ones(2))
    if claims[0] == "unknown":
        return  # not claimed: the scanner treats it as unknown
    assert seen["value"] == (claims[0] == "true"), (entry["name"], seen, claims)
    # and eager (outside compile) the compiling predicates are False: they really tell the two apart
    if entry["kind"] == "compiling":
        assert predicate() is False


def test_third_party_predicates_are_in_the_right_package():
    for entry in PREDICATES:
        if entry.get("third_party"):
            assert not entry["name"].startswith("torch."), entry
            assert "added" not in entry, entry


# --------------------------------------------------------------------------------------------
# nn.Module bases

BASES = table("module_bases")


@pytest.mark.parametrize("name", BASES["bases"])
def test_module_base_is_an_nn_module(name):
    if not name.startswith("torch."):
        root = name.split(".")[0]
        try:
            importlib.import_module(root)
        except ImportError:
            pytest.skip(f"{root} is not installed")
    cls = resolve(name)
    assert isinstance(cls, type) and issubclass(cls, nn.Module), name


@pytest.mark.parametrize("name", BASES["autograd_functions"])
def test_autograd_function_base_is_an_autograd_function(name):
    cls = resolve(name)
    assert isinstance(cls, type) and issubclass(cls, torch.autograd.Function), name


@pytest.mark.parametrize("name", BASES["exclude"])
def test_excluded_names_are_not_modules(name):
    cls = getattr(nn, name, None)
    if cls is None:
        pytest.skip(f"torch.nn.{name} is not in torch {torch.__version__}")
    assert not (isinstance(cls, type) and issubclass(cls, nn.Module)), name


def test_excluded_prefixes_hold_no_modules():
    for prefix in BASES["exclude_prefixes"]:
        module = resolve("torch.nn." + prefix.rstrip("."))
        for attr in dir(module):
            value = getattr(module, attr)
            if attr[:1].isupper() and isinstance(value, type) and issubclass(value, nn.Module):
                # torch.nn.utils.parametrize etc. hold none; a Module here would be missed
                pytest.fail(f"torch.nn.{prefix}{attr} is an nn.Module")


# --------------------------------------------------------------------------------------------
# tensors

TENSOR = table("tensor")
SAMPLE = torch.ones(2, 2, requires_grad=False)


@pytest.mark.parametrize(
    "name",
    TENSOR["tensor_returning_methods"]
    + TENSOR["host_value_methods"]
    + TENSOR["host_preserving_methods"],
)
def test_method_exists_on_tensor(name):
    assert callable(getattr(torch.Tensor, name, None)), f"torch.Tensor.{name}"


@pytest.mark.parametrize("name", TENSOR["same_kind_methods"])
def test_same_kind_method_is_not_a_tensor_method(name):
    # The receiver of one is not a tensor: torch.Tensor has no such attribute (numpy's ndarray does).
    assert not hasattr(torch.Tensor, name), f"torch.Tensor.{name}"
    assert hasattr(np.ndarray, name)


@pytest.mark.parametrize("name", TENSOR["metadata_attributes"])
def test_metadata_attribute_is_a_host_value(name):
    value = getattr(SAMPLE, name)
    assert not isinstance(value, torch.Tensor), name


@pytest.mark.parametrize("name", TENSOR["tensor_attributes"])
def test_tensor_attribute_is_a_tensor(name):
    sample = torch.ones(2, 2, dtype=torch.complex64) if name in ("real", "imag") else SAMPLE
    if name == "grad":
        sample = torch.ones(2, requires_grad=True)
        sample.sum().backward()
    assert isinstance(getattr(sample, name), torch.Tensor), name


@pytest.mark.parametrize("name", TENSOR["tensor_returning_methods"])
def test_tensor_returning_method_returns_a_tensor(name):
    args = {
        "view": (4,), "reshape": (4,), "unsqueeze": (0,), "permute": (1, 0), "transpose": (0, 1), "expand": (2, 2),
        "masked_fill": (torch.zeros(2, 2, dtype=torch.bool), 0.0), "softmax": (0,),
        "pow": (2,), "clamp": (0,), "matmul": (SAMPLE,), "mm": (SAMPLE,),
        "eq": (SAMPLE,), "ne": (SAMPLE,), "gt": (SAMPLE,), "lt": (SAMPLE,), "ge": (SAMPLE,),
        "le": (SAMPLE,), "logical_and": (SAMPLE,), "logical_or": (SAMPLE,), "to": (torch.float64,),
        "new_tensor": ([1.0],), "new_zeros": (2,), "new_ones": (2,), "new_full": ((2,), 1.0),
        "type_as": (SAMPLE,), "gather": (0, torch.zeros(2, 2, dtype=torch.long)),
        "index_select": (0, torch.zeros(1, dtype=torch.long)),
        "masked_select": (torch.ones(2, 2, dtype=torch.bool),), "where": (SAMPLE > 0, 0.0),
    }.get(name, ())
    sample = SAMPLE.unsqueeze(0) if name == "bmm" else SAMPLE
    if name == "bmm":
        args = (sample,)
    if name == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA")
    result = getattr(sample, name)(*args)
    if isinstance(result, tuple):  # max/min with a dim return (values, indices)
        result = result[0]
    assert isinstance(result, torch.Tensor), name


@pytest.mark.parametrize("name", [n for n in TENSOR["host_value_methods"] if n != "data_ptr"])
def test_host_value_method_returns_a_host_value(name):
    sample = torch.ones(1) if name == "item" else SAMPLE
    result = getattr(sample, name)()
    assert not isinstance(result, torch.Tensor), name


@pytest.mark.parametrize(
    "name",
    TENSOR["host_builders"]
    + TENSOR["host_only_builders"]
    + TENSOR["host_factories"]
    + TENSOR["stackers"]
    + TENSOR["host_preserving_stackers"],
)
def test_torch_function_exists(name):
    assert callable(resolve(name)), name


@pytest.mark.parametrize("name", TENSOR["host_factories"])
def test_host_factory_builds_on_the_default_device(name):
    args = {"torch.randint": (0, 2, (2,)), "torch.full": ((2,), 1.0), "torch.randperm": (2,),
            "torch.arange": (2,), "torch.linspace": (0, 1, 2), "torch.eye": (2,)}.get(name, (2,))
    assert resolve(name)(*args).device == torch.get_default_device()


@pytest.mark.parametrize("name", TENSOR["host_functions"])
def test_host_function_exists_in_torch(name):
    assert hasattr(torch, name), f"torch.{name}"


@pytest.mark.parametrize("name", TENSOR["host_modules"])
def test_host_module_exists(name):
    resolve("torch." + name)


@pytest.mark.parametrize("name", TENSOR["tensor_annotations"])
def test_tensor_annotation_names_a_tensor_type(name):
    if "." not in name:
        name = "torch." + name
    cls = resolve(name)
    if issubclass(cls, torch.Tensor):
        return
    # the legacy typed-tensor classes (torch.FloatTensor, ...): instances are tensors of that type
    assert isinstance(torch.ones(1).type(name), cls), name


@pytest.mark.parametrize("name", TENSOR["tensor_annotations"])
def test_calling_a_tensor_annotation_class_builds_a_tensor(name):
    # facts.rs reads `torch.Tensor([True])`, `torch.nn.Parameter(w)`, `torch.FloatTensor([1])` as
    # tensors: calling the class builds one.
    if "." not in name:
        name = "torch." + name
    built = resolve(name)(torch.ones(1)) if name.endswith("Parameter") else resolve(name)([1])
    assert isinstance(built, torch.Tensor), name


# --------------------------------------------------------------------------------------------
# dtypes and the standard library


@pytest.mark.parametrize("name", table("dtypes")["dtypes"])
def test_dtype_is_a_torch_dtype(name):
    assert isinstance(resolve(name), torch.dtype), name


def test_stdlib_table_holds_this_pythons_modules():
    versions = table("stdlib")["versions"]
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert here in versions, f"run scripts/gen_stdlib.py with Python {here}"
    assert set(versions[here]) == set(sys.stdlib_module_names)
    assert "tarfile" in versions[here]


# --------------------------------------------------------------------------------------------
# logging / warnings (misuse branches)

WARNINGS = table("warnings")


@pytest.mark.parametrize("name", WARNINGS["logger_methods"])
def test_logger_method_emits_a_record_on_logging_logger(name):
    assert callable(getattr(logging.Logger, name)), name


@pytest.mark.parametrize("name", WARNINGS["third_party_logger_methods"])
def test_third_party_logger_methods_are_not_stdlib(name):
    # In a fresh interpreter: a library imported earlier in this process (one that adds its own
    # methods to logging.Logger) must not make a third-party method look like the stdlib's.
    probe = subprocess.run(
        [sys.executable, "-c", f"import logging; print(hasattr(logging.Logger, {name!r}))"],
        capture_output=True, text=True, check=True,
    )
    assert probe.stdout.strip() == "False", f"{name} is a stdlib method: move it to logger_methods"


def test_misuse_phrases_are_lower_case_and_single_spaced():
    # The scanner lower-cases the warning text and collapses its whitespace before matching.
    for phrase in WARNINGS["misuse_phrases"]:
        assert phrase == phrase.lower() and phrase == " ".join(phrase.split()) and phrase, phrase


def test_misuse_phrases_leave_normal_situation_warnings_alone():
    # Real warnings on normal paths (transformers 5.24 loss_function, bloom, big_bird): none may
    # read as a misuse notice, or their branch (a measured graph break) would go silent.
    normal = [
        "`loss_type=None` was set in the config but it is unrecognized. Using the default loss: `ForCausalLMLoss`.",
        "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`...",
        "Attention type 'block_sparse' is not possible if sequence_length: 8 <= num global tokens",
        "Input ids are automatically padded from 7 to 8 to be a multiple of `config.block_size`: 4",
    ]
    for text in normal:
        assert not any(p in text.lower() for p in WARNINGS["misuse_phrases"]), text
