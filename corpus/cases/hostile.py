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


def parent_is_graphbreak_fork_server():
    """True only when this process is a child forked by graphbreak's fork server (`harness.py serve`).

    A forked child runs the harness that the server loaded, so `__main__` is that harness file, and its
    parent is the server: the same Python executable, running exactly `<python> ... <that harness file>
    serve <token> ...`. A spawned case (`harness.py run`) has graphbreak itself as its parent: neither a
    Python executable nor an argv with `<harness> serve`, so the test never kills graphbreak. Anything
    unreadable (no /proc, another OS) answers False.
    """
    import os

    harness = getattr(sys.modules.get("__main__"), "__file__", None)
    if not harness:
        return False
    parent = os.getppid()
    try:
        with open(f"/proc/{parent}/cmdline", "rb") as cmdline:
            argv = [arg.decode("utf-8", "replace") for arg in cmdline.read().split(b"\0")]
        parent_executable = os.path.realpath(f"/proc/{parent}/exe")
    except OSError:
        return False
    if parent_executable != os.path.realpath(sys.executable):
        return False
    return any(
        arg == harness and argv[position + 1] == "serve" for position, arg in enumerate(argv[:-1])
    )


def case_kills_fork_server(record_dir=None):
    """Kills the fork server that forked it (SIGKILL, as the OOM killer would) and is then killed with it
    (the forked child's parent-death signal). Spawned, its parent is graphbreak (never killed): a healthy
    case. `record_dir`: where to write `server-<pid>`, `child-<pid>` and `grandchild-<pid>` (the test checks
    that none outlives the run), or `spawned-<pid>` when spawned."""
    import os
    import signal
    import subprocess

    if parent_is_graphbreak_fork_server():
        server = os.getppid()
        # A process the case leaves behind (as Inductor's compile workers are): it holds the server's
        # stdout and stderr open after the server and this child are gone, so graphbreak cannot wait for
        # those pipes to close; it is in this child's process group, which graphbreak kills.
        grandchild = subprocess.Popen(["sleep", "120"])
        if record_dir:
            for name in (f"server-{server}", f"child-{os.getpid()}", f"grandchild-{grandchild.pid}"):
                with open(os.path.join(record_dir, name), "w"):
                    pass
        os.kill(server, signal.SIGKILL)
        time.sleep(60)  # the parent-death signal (SIGKILL) ends this child first
        raise AssertionError("the fork server was killed, yet its child lives on")
    if record_dir:
        with open(os.path.join(record_dir, f"spawned-{os.getpid()}"), "w"):
            pass
    return {"model": torch.nn.Linear(4, 4), "args": (torch.randn(2, 4),), "compile": {"backend": "eager"}}
