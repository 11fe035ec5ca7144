"""Cases that misbehave on purpose, for testing that `check` isolates them (never listed in pyproject)."""

import sys
import time

import torch


def case_segfault():
    import ctypes

    ctypes.string_at(0)  # reads address 0: SIGSEGV
    raise AssertionError("unreachable")


def case_hang():
    while True:
        time.sleep(3600)


def case_factory_raises():
    raise RuntimeError("factory failed on purpose")  # LINE: raises


def case_prints_megabytes():
    chunk = "x" * 1023 + "\n"
    for _ in range(5 * 1024):
        sys.stdout.write(chunk)
    sys.stdout.flush()
    return {"model": torch.nn.Linear(4, 4), "args": (torch.randn(2, 4),), "compile": {"backend": "eager"}}


def case_exits():
    sys.exit(3)


class AllocatesTooMuch(torch.nn.Module):
    def forward(self, x):
        # 1 PiB: more than any GPU has; the caching allocator raises torch.cuda.OutOfMemoryError at once.
        waste = torch.empty(2**50, dtype=torch.uint8, device=x.device)
        return x + waste[:1].float()


def case_cuda_oom():
    """CUDA only (a CPU allocation this size could be granted lazily by an overcommitting kernel)."""
    if not torch.cuda.is_available():
        raise RuntimeError("case_cuda_oom needs a CUDA device")
    return {"model": AllocatesTooMuch(), "args": (torch.randn(4),), "compile": {"backend": "eager"}}
