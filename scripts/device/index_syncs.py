"""Which host-index and host-copy forms block the host on CUDA (issue 16, SY001/SY003 claims).

For each form: the number of synchronizing calls torch reports (`torch.cuda.set_sync_debug_mode("warn")`)
and whether the host waited for the device queue: a ~50 ms kernel (`torch.cuda._sleep`) is queued first, then
the form runs; if the call returns only after the kernel finished, the host was blocked (host time ≈ 50 ms),
else it returns at once (host time ≈ 0). Eager, then compiled with Inductor for the forms the SY001 message
talks about. Run on a CUDA machine: `python3 scripts/device/index_syncs.py`.
"""

import json
import sys
import time
import warnings

import numpy as np
import torch

dev = torch.device("cuda")
torch.manual_seed(0)


def sleep_cycles_for(ms):
    # Calibrate torch.cuda._sleep to about `ms` milliseconds.
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    torch.cuda._sleep(10_000_000)
    torch.cuda.synchronize()
    per = (time.perf_counter() - t0) / 10_000_000
    return int(ms / 1000 / per)


CYCLES = sleep_cycles_for(50)


def measure(name, fn, repeat=3):
    fn()  # warm-up (allocations, lazy init, compilation)
    torch.cuda.synchronize()
    host_ms = []
    syncs = 0
    for _ in range(repeat):
        torch.cuda._sleep(CYCLES)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.cuda.set_sync_debug_mode("warn")
            t0 = time.perf_counter()
            fn()
            t1 = time.perf_counter()
            torch.cuda.set_sync_debug_mode("default")
        syncs += sum("synchroniz" in str(w.message) for w in caught)
        host_ms.append((t1 - t0) * 1000)
        torch.cuda.synchronize()
    row = {
        "form": name,
        "syncs_per_call": syncs / repeat,
        "host_ms_median": sorted(host_ms)[len(host_ms) // 2],
        "blocks_host": sorted(host_ms)[len(host_ms) // 2] > 25,
    }
    print(json.dumps(row), flush=True)
    return row


x = torch.randn(64, 8, device=dev)
cpu_bool = torch.rand(64) > 0.5
cpu_bool_col = torch.tensor([True, False, True, False, True, False, True, False])
cuda_bool = cpu_bool.to(dev)
cpu_long = torch.tensor([0, 2, 5, 7])
cuda_long = cpu_long.to(dev)
np_long = np.array([0, 2, 5, 7])
np_bool = cpu_bool.numpy()
pinned_long = cpu_long.pin_memory()
arr = np.random.rand(64, 8).astype(np.float32)

rows = []
forms = [
    # reads
    ("read x[cpu_bool_mask]", lambda: x[cpu_bool]),
    ("read x[..., cpu_bool_mask(cols)]", lambda: x[..., cpu_bool_col]),
    ("read x[cuda_bool_mask]", lambda: x[cuda_bool]),
    ("read x[np_bool_mask]", lambda: x[np_bool]),
    ("read x[cpu_long_index]", lambda: x[cpu_long]),
    ("read x[pinned_cpu_long_index]", lambda: x[pinned_long]),
    ("read x[cuda_long_index]", lambda: x[cuda_long]),
    ("read x[np_long_index]", lambda: x[np_long]),
    ("read x[[0, 2, 5, 7]] (list display)", lambda: x[[0, 2, 5, 7]]),
    ("read x[:, [0, 2]] (list display)", lambda: x[:, [0, 2]]),
    ("read x[3] (int)", lambda: x[3]),
    # writes
    ("write x[cpu_bool_mask] = 0", lambda: x.__setitem__(cpu_bool, 0.0)),
    ("write x[cuda_bool_mask] = 0", lambda: x.__setitem__(cuda_bool, 0.0)),
    ("write x[cpu_long_index] = 0", lambda: x.__setitem__(cpu_long, 0.0)),
    ("write x[cuda_long_index] = 0", lambda: x.__setitem__(cuda_long, 0.0)),
    ("write x[:, [0, 2]] *= 2 (list display)", lambda: x.__setitem__((slice(None), [0, 2]), x[:, [0, 2]] * 2)),
    ("write x[cpu_bool_mask] = cuda tensor", lambda: x.__setitem__(cpu_bool, x[cuda_bool] * 2)),
    # host-built tensors copied to the device
    ("torch.from_numpy(arr).to(dev)", lambda: torch.from_numpy(arr).to(dev)),
    ("torch.from_numpy(arr).to(dev, non_blocking=True)", lambda: torch.from_numpy(arr).to(dev, non_blocking=True)),
    ("torch.tensor([1, 2]).to(dev)", lambda: torch.tensor([1, 2]).to(dev)),
    ("torch.arange(8).to(dev)", lambda: torch.arange(8).to(dev)),
]
for name, fn in forms:
    try:
        rows.append(measure(name, fn))
    except Exception as e:  # a form torch refuses is recorded, not fatal
        print(json.dumps({"form": name, "error": repr(e)}), flush=True)


# Compiled with Inductor: a host array that is an input vs. a constant built in the function.
@torch.compile(backend="inductor")
def from_input(y, a):
    return y + torch.from_numpy(a).to(y.device)


@torch.compile(backend="inductor")
def from_constant(y):
    return y + torch.arange(8).to(y.device)


@torch.compile(backend="inductor")
def index_cpu_bool(y, m):
    return y[m] * 2


@torch.compile(backend="inductor")
def index_cpu_long(y, i):
    return y[i] * 2


for name, fn in [
    ("inductor: y + from_numpy(input arr).to(dev)", lambda: from_input(x, arr)),
    ("inductor: y + arange(8).to(dev) (constant)", lambda: from_constant(x)),
    ("inductor: y[cpu_bool_mask input]", lambda: index_cpu_bool(x, cpu_bool)),
    ("inductor: y[cpu_long_index input]", lambda: index_cpu_long(x, cpu_long)),
]:
    try:
        rows.append(measure(name, fn))
    except Exception as e:
        print(json.dumps({"form": name, "error": repr(e)[:300]}), flush=True)

meta = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "sleep_cycles": CYCLES}
print(json.dumps(meta))
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
