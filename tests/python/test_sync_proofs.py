"""Runtime proofs for the sync family's step-code rules (SY003 host-index-on-device-tensor, SY004
host-data-tensor-on-device, SY001's factory moves).

A device sync cannot be observed on the CPU, so each rule has two proofs:
- on CUDA (skipped with a reason elsewhere): the corpus positives run eagerly under
  `torch.cuda.set_sync_debug_mode("warn")`, and the lines that synchronize are exactly the lines
  carrying an `# expect: SY00x` marker (each marked line syncs, no unmarked line of the file does);
  the negatives' step code runs under `set_sync_debug_mode("error")` without one sync;
- on the CPU: the fact the rule reads statically holds at run time — the index used at each
  SY003 line really is a host value (a numpy array, a Python list of ints, or a CPU tensor that the
  host computed while the data it indexes came from elsewhere), recorded through a
  `TorchFunctionMode` that sees every `Tensor.__getitem__` / `__setitem__`.

Run: `pytest tests/python/test_sync_proofs.py` (the lead runs the CUDA half on a GPU).
"""

from __future__ import annotations

import contextlib
import re
import sys
import types
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode

from conftest import CORPUS_DIR
from conftest import load_corpus as shared_load_corpus

SYNC_WARNING = "called a synchronizing CUDA operation"

requires_cuda = pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="sync proofs need a CUDA device (torch.cuda.set_sync_debug_mode); the CPU proofs below still run",
)


def load_corpus(code: str, name: str) -> types.ModuleType:
    return shared_load_corpus(code, name, namespace="sync_corpus")


def marked_lines(code: str, name: str, prefix: str = "SY00") -> set[int]:
    """Rows carrying an `# expect: <prefix>...` marker."""
    path = CORPUS_DIR / code / f"{name}.py"
    rows = set()
    for row, line in enumerate(path.read_text().splitlines(), start=1):
        if re.search(rf"#\s*expect:\s*{prefix}\d*", line):
            rows.add(row)
    return rows


@contextlib.contextmanager
def sync_debug_mode(mode: str):
    previous = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode(mode)
    try:
        yield
    finally:
        torch.cuda.set_sync_debug_mode(previous)


def sync_lines(fn, args, path: Path) -> Counter:
    """Per row of `path`, how many synchronizing CUDA calls one eager call of `fn` made there."""
    torch.cuda.synchronize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with sync_debug_mode("warn"):
            fn(*args)
    torch.cuda.synchronize()
    rows = Counter()
    for w in caught:
        if SYNC_WARNING in str(w.message) and Path(w.filename).resolve() == path.resolve():
            rows[w.lineno] += 1
    return rows


def case_params(code: str, name: str):
    cases = load_corpus(code, name).cases("cpu")
    return [pytest.param(code, name, case, id=f"{code}-{name}-{case}") for case in cases]


# --------------------------------------------------------------------------------------------
# CUDA: the marked lines are the lines that synchronize


@requires_cuda
@pytest.mark.parametrize("code", ["SY003", "SY004"])
def test_positive_syncs_are_exactly_the_marked_lines(code):
    path = CORPUS_DIR / code / "positive.py"
    module = load_corpus(code, "positive")
    synced: Counter = Counter()
    for name, (fn, args) in module.cases("cuda").items():
        fn(*args)  # warm-up: allocator, cuBLAS handles, lazy init
        synced.update(sync_lines(fn, args, path))
    expected = marked_lines(code, "positive")
    assert set(synced) == expected, (
        f"synchronizing rows {sorted(synced)} vs marked rows {sorted(expected)}"
    )


@requires_cuda
@pytest.mark.parametrize("code,name,case", case_params("SY003", "negative") + case_params("SY004", "negative"))
def test_negative_step_code_does_not_synchronize(code, name, case):
    fn, args = load_corpus(code, name).cases("cuda")[case]
    fn(*args)
    torch.cuda.synchronize()
    with sync_debug_mode("error"):
        fn(*args)
    torch.cuda.synchronize()


@requires_cuda
def test_sy001_factory_move_synchronizes_and_device_factory_does_not():
    """`torch.arange(n).to(x.device)` / `torch.zeros(3).cuda()` copy host memory with a blocking
    copy (one sync each); `torch.arange(n, device=...)` fills on the device (none)."""
    x = torch.rand(4, device="cuda")
    moved = [
        lambda t: t + torch.arange(4).to(t.device),
        lambda t: t + torch.arange(4).to("cuda"),
        lambda t: t + torch.zeros(4).cuda(),
    ]
    for fn in moved:
        fn(x)
        torch.cuda.synchronize()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with sync_debug_mode("warn"):
                fn(x)
        assert sum(SYNC_WARNING in str(w.message) for w in caught) == 1
    on_device = lambda t: t + torch.arange(4, device=t.device)  # noqa: E731
    on_device(x)
    torch.cuda.synchronize()
    with sync_debug_mode("error"):
        on_device(x)


def host_seconds_behind_queued_work(fn) -> float:
    """Host time of one call of `fn` issued behind ~50 ms of queued device work: about 0 when the
    call does not wait for the device, about the queued time when it does (the blocking claim
    itself, whatever sync debug mode counts)."""
    fn()
    torch.cuda.synchronize()
    torch.cuda._sleep(100_000_000)
    start = time.perf_counter()
    fn()
    held = time.perf_counter() - start
    torch.cuda.synchronize()
    return held


@requires_cuda
def test_sy003_host_bool_mask_read_does_not_hold_the_host_but_a_write_and_an_int_index_do():
    """Why SY003 skips reads through a host torch bool mask (measured on an H200, torch 2.11)."""
    x = torch.rand(64, 8, device="cuda")
    mask = torch.rand(64) > 0.5
    rows = torch.tensor([0, 2, 5, 7])
    queued = host_seconds_behind_queued_work(torch.cuda.synchronize)
    assert queued > 0.02, "the queued device work is too short to tell"
    assert host_seconds_behind_queued_work(lambda: x[mask]) < queued / 4
    assert host_seconds_behind_queued_work(lambda: x.__setitem__(mask, 0.0)) > queued / 2
    assert host_seconds_behind_queued_work(lambda: x[rows]) > queued / 2
    assert host_seconds_behind_queued_work(lambda: x[mask.numpy()]) > queued / 2


# --------------------------------------------------------------------------------------------
# CPU: the host-index fact at each SY003 line


class IndexRecorder(TorchFunctionMode):
    """Records, per row of one file, the index objects of every tensor `[...]` read or write."""

    def __init__(self, path: Path):
        super().__init__()
        self.path = str(path.resolve())
        self.by_row: dict[int, list] = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (torch.Tensor.__getitem__, torch.Tensor.__setitem__):
            frame = sys._getframe(1)
            while frame is not None and str(Path(frame.f_code.co_filename).resolve()) != self.path:
                frame = frame.f_back
            if frame is not None:
                self.by_row.setdefault(frame.f_lineno, []).append(args[1])
        return func(*args, **kwargs)


def host_parts(index) -> list[str]:
    """What in an index is a host value that advanced indexing must copy to the device."""
    if isinstance(index, tuple):
        return [part for element in index for part in host_parts(element)]
    if isinstance(index, np.ndarray):
        return ["numpy array"]
    if isinstance(index, list) and all(isinstance(v, int) for v in index):
        return ["list of ints"]
    if isinstance(index, list):
        return [part for element in index for part in host_parts(element)]
    if isinstance(index, torch.Tensor) and index.dim() > 0 and index.device.type == "cpu":
        return ["CPU tensor"]
    return []


def test_sy003_indices_are_host_values_at_every_marked_line():
    path = CORPUS_DIR / "SY003" / "positive.py"
    module = load_corpus("SY003", "positive")
    recorder = IndexRecorder(path)
    with recorder:
        for fn, args in module.cases("cpu").values():
            fn(*args)
    for row in marked_lines("SY003", "positive", "SY003"):
        indices = recorder.by_row.get(row)
        assert indices, f"row {row}: no tensor indexing recorded"
        assert any(host_parts(index) for index in indices), (row, indices)


def test_sy003_host_indices_come_from_the_host_not_from_the_data():
    """The matcher's indices are built from numpy arrays: they are CPU tensors whatever device
    the predictions are on — here the predictions are float64 and the indices int64 CPU tensors
    created by `torch.as_tensor` of numpy output (no tensor of the batch flows into them)."""
    module = load_corpus("SY003", "positive")
    outputs, targets = module.detection_batch("cpu")
    indices = module.GreedyMatcher()(outputs, targets)
    for src, tgt in indices:
        assert src.device.type == "cpu" and src.dtype == torch.int64
        assert tgt.device.type == "cpu" and tgt.dtype == torch.int64
        assert not src.requires_grad
    # The pieces the matcher solves with are numpy arrays.
    rows, cols = module.GreedyMatcher.assign(np.random.rand(5, 3))
    assert isinstance(rows, np.ndarray) and isinstance(cols, np.ndarray)


def test_sy003_negative_indices_are_device_values_or_scalars():
    """In the negatives' step code, no index is a host array (Python ints and slices are basic
    indexing; tensors come from device ops on the inputs)."""
    path = CORPUS_DIR / "SY003" / "negative.py"
    module = load_corpus("SY003", "negative")
    recorder = IndexRecorder(path)
    with recorder:
        for fn, args in module.cases("cpu").values():
            fn(*args)
    assert recorder.by_row, "no indexing recorded"
    for row, indices in recorder.by_row.items():
        for index in indices:
            parts = [p for p in host_parts(index) if p != "CPU tensor"]
            assert not parts, (row, index)


def test_sy004_data_is_python_data():
    """SY004's argument is Python data (a list / a number), not a tensor: torch must build it on
    the host before it can reach `device=`."""
    module = load_corpus("SY004", "positive")
    logits = torch.randn(2, 5, 4)
    targets = [{"labels": torch.zeros(n, dtype=torch.int64)} for n in (2, 3)]
    seen = []

    class Record(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func in (torch.as_tensor, torch.tensor):
                seen.append(type(args[0]))
            return func(*args, **(kwargs or {}))

    with Record():
        module.CardinalityLoss()(logits, targets)
        module.PerLevelScale()([torch.rand(2, 4) for _ in range(3)])
    assert seen and all(t in (list, float, int) for t in seen), seen


@requires_cuda
def test_sy003_constructor_indices_sync_in_eager_but_not_under_inductor():
    """What SY003's message says of compiled code: host-built index constructors cost one
    blocking copy each in eager mode and under `backend="eager"`, and none under Inductor, which
    builds them on the device (measured on an H200, torch 2.11)."""
    x = torch.rand(8, 4, device="cuda")

    def by_arange(t):
        return t[torch.arange(t.shape[0] // 2)] * 2

    def by_list(t):
        return t[[0, 2, 3]] * 2

    def per_iteration(t):
        out = t.clone()
        for step in range(3):
            out = out + t[torch.tensor([step])].sum()
        return out

    def syncs(fn) -> int:
        fn(x)
        torch.cuda.synchronize()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with sync_debug_mode("warn"):
                fn(x)
        return sum(SYNC_WARNING in str(w.message) for w in caught)

    for fn, eager_syncs in ((by_arange, 1), (by_list, 1), (per_iteration, 3)):
        assert syncs(fn) == eager_syncs, fn.__name__
        torch._dynamo.reset()
        assert syncs(torch.compile(fn, backend="eager")) == eager_syncs, fn.__name__
        torch._dynamo.reset()
        assert syncs(torch.compile(fn, backend="inductor")) == 0, fn.__name__
