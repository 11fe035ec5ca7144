"""The tables generated from torch (rules/data/{op_tags,return_types,skipped_functions,
unwrapped_modules,graph_breaks}.toml, by scripts/gen_torch_data.py) checked against the installed
torch: every entry whose range holds for this torch is true here — the op carries the tag, the
annotation says the kind, Dynamo really refuses the call (compiled with fullgraph=True, backend
"eager"), the module class really is refused, the registry has the code — and nothing the
generators find on this torch is missing from the tables.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest
import torch
import torch._dynamo
from torch import nn

from conftest import REPO, resolve, torch_version

DATA = REPO / "rules" / "data"
sys.path.insert(0, str(REPO / "scripts"))

from torch_data import (  # noqa: E402 - the generators live beside the driver script
    gen_gb_registry,
    gen_op_tags,
    gen_return_types,
    gen_skipped_functions,
    gen_skipped_library_functions,
    gen_skipped_torch_internals,
    gen_tensor_members,
    gen_unwrapped_modules,
)

TORCH_VERSION = torch_version()


def holds_here(spec: str) -> bool:
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        bound = tuple(int(p) for p in part.lstrip(">=<").split("."))
        if part.startswith(">=") and TORCH_VERSION < bound:
            return False
        if part.startswith("<") and TORCH_VERSION >= bound:
            return False
    return True


def table(name: str) -> tuple[list[str], dict[str, dict]]:
    """(versions generated from, name -> fields for this torch)."""
    data = tomllib.loads((DATA / f"{name}.toml").read_text())
    entries: dict[str, dict] = {}
    for group in data["entries"]:
        if not holds_here(group["torch"]):
            continue
        fields = {k: v for k, v in group.items() if k not in ("torch", "names")}
        for entry in group["names"]:
            assert entry not in entries, f"{name}: {entry} listed twice for this torch"
            entries[entry] = fields
    return data["versions"], entries


def generated_for_this_torch(name: str) -> bool:
    versions, _ = table(name)
    return any(tuple(int(p) for p in v.split(".")[:2]) == TORCH_VERSION for v in versions)


def require_generated(name: str) -> None:
    if not generated_for_this_torch(name):
        pytest.skip(f"rules/data/{name}.toml was not generated from torch {torch.__version__}")


# --------------------------------------------------------------------------------------------
# op tags


def test_op_tag_entries_carry_their_tags_here():
    require_generated("op_tags")
    _, entries = table("op_tags")
    assert "torch.nonzero" in entries
    for spelling, fields in entries.items():
        assert callable(resolve(spelling)), spelling
        for op in fields["aten"]:
            packet = getattr(torch.ops.aten, op)
            for overload in fields["overloads"]:
                tags = {t.name for t in getattr(packet, overload).tags}
                assert set(fields["tags"]) & tags, (spelling, op, overload, tags)


def test_op_tags_table_is_complete_for_this_torch():
    require_generated("op_tags")
    _, entries = table("op_tags")
    # In a fresh interpreter with Dynamo imported, as scripts/gen_torch_data.py runs it (its first
    # generator imports Dynamo, which tags more ops): other tests of this session import modules that
    # register more still, which the generator would see here.
    code = (
        "import json, sys, torch._dynamo; sys.path.insert(0, sys.argv[1]); "
        "from torch_data import gen_op_tags; print(json.dumps(gen_op_tags.generate()))"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", code, str(REPO / "scripts")],
        capture_output=True, text=True, check=True,
    )
    regenerated = json.loads(fresh.stdout.strip().splitlines()[-1])
    assert set(regenerated) == set(entries)
    # The whole table re-derived, Dynamo measurements included (every candidate is measured again
    # here: ~30 s on torch 2.11, two dozen spellings each compiled once or twice).
    assert regenerated == entries
    # Ops dir(torch.ops.aten) did not list, measured breaking on every generated torch; one_hot
    # traces when given num_classes from torch 2.5 (on 2.2 it broke either way).
    assert entries["torch.linalg.lstsq"]["dynamo"] == "breaks"
    assert entries["torch.nn.functional.ctc_loss"]["dynamo"] == "breaks"
    if TORCH_VERSION >= (2, 5):
        assert entries["torch.nn.functional.one_hot"]["unless_given"] == ["num_classes"]


# --------------------------------------------------------------------------------------------
# return types


def test_return_types_match_torch_annotations_here():
    require_generated("return_types")
    _, entries = table("return_types")
    regenerated = gen_return_types.generate()
    assert {n: f["returns"] for n, f in entries.items()} == {
        n: f["returns"] for n, f in regenerated.items()
    }


@pytest.mark.parametrize(
    "name,kind",
    [
        ("torch.accelerator.is_available", "bool"),
        ("torch._jit_internal.is_scripting", "bool"),
        ("torch.cuda.is_available", "bool"),
        ("torch.nn.functional.relu", "tensor"),
        ("Tensor.is_contiguous", "bool"),
        ("Tensor.dim", "int"),
        ("Tensor.sum", "tensor"),
        # A private module under a namespace's alias (`F._Reduction` is `torch.nn._reduction`).
        ("torch.nn.functional._Reduction.get_enum", "int"),
        # A C builtin no stub covers: its aten op's schema (`aten::linalg_norm(...) -> Tensor`).
        ("torch.linalg.norm", "tensor"),
        # Overloads returning a tensor or a named tuple of tensors.
        ("torch.max", "tensor_or_tensors"),
        # `boolean_dispatch`: both functions it picks between are annotated.
        ("torch.nn.functional.max_pool2d", "tensor_or_tensors"),
    ],
)
def test_return_kinds_of_known_functions(name, kind):
    require_generated("return_types")
    _, entries = table("return_types")
    if name not in entries:
        assert not hasattr(torch, name.split(".")[1]) or name.startswith("torch.accelerator")
        pytest.skip(f"{name} not on torch {torch.__version__}")
    assert entries[name]["returns"] == kind


def test_argumentless_host_predicates_return_what_the_table_says():
    """Every `is_*` / `*available*` function the table calls a bool and that takes no argument,
    called: it returns a bool (no tensor)."""
    _, entries = table("return_types")
    called = 0
    for name, fields in entries.items():
        last = name.rsplit(".", 1)[-1]
        if fields["returns"] != "bool" or name.startswith("Tensor."):
            continue
        if not (last.startswith("is_") and "available" in last):
            continue
        fn = resolve(name)
        try:
            import inspect

            if any(
                p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                for p in inspect.signature(fn).parameters.values()
            ):
                continue
        except (TypeError, ValueError):
            continue
        assert isinstance(fn(), bool), name
        called += 1
    assert called >= 3


# --------------------------------------------------------------------------------------------
# functions Dynamo refuses to trace


@pytest.fixture
def quiet_dynamo():
    logging.disable(logging.CRITICAL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
    logging.disable(logging.NOTSET)
    torch._dynamo.reset()


def remeasured(name: str) -> dict:
    """The entries of table `name` as the generator measures them now, in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_torch_data.py"), "--emit", "--only", name],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)["tables"][name]["entries"]


def test_skipped_functions_are_refused_by_dynamo_here():
    """Re-measure every candidate in a fresh interpreter, as the generator does (Dynamo's answer
    for a few functions depends on process state, e.g. an `lru_cache` already filled, so the
    measurement is only comparable from the same starting point): the same entries, the same
    break types."""
    require_generated("skipped_functions")
    _, entries = table("skipped_functions")
    assert {"torch.manual_seed", "torch.nn.utils.rnn.pack_padded_sequence"} <= set(entries)
    measured = remeasured("skipped_functions")
    assert {n: f["gb_type"] for n, f in measured.items()} == {
        n: f["gb_type"] for n, f in entries.items()
    }


def test_a_skipped_call_in_a_model_breaks_with_the_table_type(quiet_dynamo):
    _, entries = table("skipped_functions")
    for name in ("torch.manual_seed", "torch.jit.isinstance", "os.environ.__setitem__"):
        if name not in entries:
            continue
        if name in gen_skipped_functions.STDLIB_PROBES:
            traced = gen_skipped_functions.probe(gen_skipped_functions.STDLIB_PROBES[name])
            message = gen_skipped_functions.measure_traced(traced)
        else:
            message = gen_skipped_functions.measure(resolve(name))
        assert message is not None, name
        assert gen_skipped_functions.break_type(message) == entries[name]["gb_type"], name


def test_skipped_library_functions_are_refused_by_dynamo_here(quiet_dynamo):
    """Re-measure the table's entries on this torch (a deterministic sample of one in ten, plus
    the ones models call): each is still the skipped-function break naming the function. Entries
    of a third-party package not installed here (the table is generated with the skip-listed
    packages importable) are not measurable in this interpreter and are counted, not passed."""
    require_generated("skipped_library_functions")
    _, entries = table("skipped_library_functions")
    assert {"copy.copy", "threading.Lock"} <= set(entries)
    names = sorted(entries)
    sample = {"copy.copy", "threading.Lock", *names[::10]}
    measured = 0
    for name in sorted(sample):
        try:
            obj = resolve(name)
        except ImportError:
            assert name.split(".")[0] not in sys.stdlib_module_names, name
            continue
        message = gen_skipped_functions.measure(obj)
        assert message is not None, name
        assert gen_skipped_library_functions.skipped_break(message) == entries[name]["gb_type"], name
        assert gen_skipped_library_functions.names_candidate(message, obj), (name, message)
        measured += 1
    assert measured >= len(sample) // 2


def test_a_break_inside_a_library_function_is_not_its_own_entry(quiet_dynamo):
    """`threading.current_thread()` breaks at the builtin it calls (`_thread.get_ident`): the
    break does not name it, so the no-argument measurement cannot vouch for it and it is left
    out; `copy.copy` breaks at itself."""
    import copy
    import threading

    message = gen_skipped_functions.measure(threading.current_thread)
    assert message is not None and gen_skipped_functions.break_type(message) is not None
    assert not gen_skipped_library_functions.names_candidate(message, threading.current_thread)
    message = gen_skipped_functions.measure(copy.copy)
    assert gen_skipped_library_functions.names_candidate(message, copy.copy)
    _, entries = table("skipped_library_functions")
    assert "threading.current_thread" not in entries


def test_skipped_torch_internals_are_refused_by_dynamo_here(quiet_dynamo):
    """Re-measure a deterministic sample of the internal table (one object in forty, plus the
    re-exported C builtin) on this torch: Dynamo refuses each call and names the function. The
    full measurement imports every torch module (~5 minutes), so the generator, not this test,
    is the complete check. A module that does not import here (an optional dependency) is
    counted, not passed."""
    require_generated("skipped_torch_internals")
    _, entries = table("skipped_torch_internals")
    names = sorted(entries)
    sample = {"torch._dynamo.testing.unsupported", *names[::40]}
    measured = 0
    for name in sorted(sample):
        try:
            obj = resolve(name)
        except Exception:  # noqa: BLE001 - an optional dependency missing in this interpreter
            continue
        message = gen_skipped_functions.measure(obj)
        assert message is not None, name
        assert gen_skipped_torch_internals.refused(message, obj), (name, message[:300])
        measured += 1
    assert measured >= len(sample) * 3 // 4, (measured, len(sample))


def test_a_reexported_builtin_is_listed_under_every_spelling():
    """`torch._dynamo.testing.unsupported` is the C builtin `torch._C._dynamo.eval_frame.unsupported`
    re-exported by two Python modules: the table lists each spelling that holds the same object,
    and none of them is a public namespace's (those are `skipped_functions`')."""
    require_generated("skipped_torch_internals")
    import torch._dynamo.eval_frame
    import torch._dynamo.testing

    _, entries = table("skipped_torch_internals")
    builtin = torch._dynamo.testing.unsupported
    assert builtin is torch._dynamo.eval_frame.unsupported
    assert {"torch._dynamo.testing.unsupported", "torch._dynamo.eval_frame.unsupported"} <= set(entries)
    # The C module's own spelling is listed where that torch registers it as a module (2.5+).
    for name in entries:
        if name.endswith(".unsupported") and name.startswith(("torch._dynamo.", "torch._C._dynamo.")):
            assert resolve(name) is builtin, name
    _, public = table("skipped_functions")
    assert not set(entries) & set(public)


def test_a_reexported_builtin_breaks_a_model_with_the_table_type(quiet_dynamo):
    """Called with real arguments in a compiled function, the builtin is the break the table says."""
    from torch._dynamo.testing import unsupported

    def fn(a, b):
        x = a + b
        x = unsupported(x, x)
        return x.sin()

    message = gen_skipped_functions.measure_traced(lambda x: fn(x, x))
    assert message is not None
    assert gen_skipped_torch_internals.refused(message, unsupported), message[:300]


def test_in_graph_device_queries_are_not_skipped():
    _, entries = table("skipped_functions")
    for name in ("torch.cuda.is_available", "torch.accelerator.is_available", "torch.nonzero"):
        assert name not in entries


# --------------------------------------------------------------------------------------------
# module classes Dynamo will not wrap


def test_unwrapped_modules_are_refused_by_dynamo_here(quiet_dynamo):
    require_generated("unwrapped_modules")
    _, entries = table("unwrapped_modules")
    assert "torch.nn.LSTM" in entries
    for name in entries:
        cls = resolve(name)
        assert issubclass(cls, nn.Module), name
        module = cls(2, 2)

        def calls_it(x, module=module):
            return module(x)[0] + 1

        torch._dynamo.reset()
        with pytest.raises(torch._dynamo.exc.Unsupported):
            torch.compile(calls_it, backend="eager", fullgraph=True)(torch.ones(1, 2, 2))
    assert set(gen_unwrapped_modules.generate()) == set(entries)


# --------------------------------------------------------------------------------------------
# graph-break registry


def test_graph_break_codes_match_the_installed_registry():
    registry = Path(torch._dynamo.__file__).parent / "graph_break_registry.json"
    _, entries = table("graph_breaks")
    if not registry.exists():
        assert not entries, "no registry on this torch, yet the table claims codes for it"
        return
    installed = json.loads(registry.read_text())
    assert {code: f["gb_type"] for code, f in entries.items()} == {
        code: forms[0]["Gb_type"] for code, forms in installed.items() if forms
    }
    assert gen_gb_registry.generate().keys() == entries.keys()


# --------------------------------------------------------------------------------------------
# the hand-written tensor table agrees with torch's annotations


def test_hand_written_tensor_table_does_not_contradict_the_annotations():
    """tensor.toml's hand lists (kept for names torch's annotations leave open, e.g. `max` whose
    overloads return a tensor or a named tuple) never contradict a generated return kind."""
    hand = tomllib.loads((DATA / "tensor.toml").read_text())
    _, returns = table("return_types")

    def kind(name):
        return returns.get(name, {}).get("returns")

    host = {"bool", "int", "float", "complex", "number", "str", "none", "size", "dtype", "device"}
    contradictions = [
        m for m in hand["tensor_returning_methods"] if kind(f"Tensor.{m}") in host
    ] + [
        m for m in hand["host_value_methods"] if kind(f"Tensor.{m}") in ("tensor", "tensors", "tensor_or_tensors")
    ] + [
        f for f in hand["host_functions"] if kind(f"torch.{f}") in ("tensor", "tensors", "tensor_or_tensors")
    ]
    assert not contradictions, contradictions
    assert kind("Tensor.sum") == "tensor" and kind("Tensor.dim") == "int"


def test_tensor_members_are_dir_of_tensor_here():
    require_generated("tensor_members")
    _, entries = table("tensor_members")
    assert set(entries) == set(dir(torch.Tensor)) == set(gen_tensor_members.generate())
    # The fact the scanner reads: a tensor has no `.copy()` / `.astype()`; an ndarray does.
    assert "copy" not in entries and "astype" not in entries


# --------------------------------------------------------------------------------------------
# Dynamo's markers (rules/data/dynamo_markers.toml)


def test_dynamo_markers_are_remeasured_here():
    """Re-measure the markers in a fresh interpreter, as the generator does: the same markers,
    the same break per target kind (`disable`'s function, class and instance; `disallow_in_graph`
    of a torch function; `allow_in_graph` of a function is no break)."""
    require_generated("dynamo_markers")
    _, entries = table("dynamo_markers")
    assert entries["torch.compiler.disable"]["function"].startswith(
        ("Skip calling", "unregistered")
    )
    assert "function" not in entries.get("torch._dynamo.allow_in_graph", {})
    measured = remeasured("dynamo_markers")
    assert measured == entries
