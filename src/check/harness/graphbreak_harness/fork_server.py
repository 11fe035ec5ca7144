"""The fork server: `harness.py serve TOKEN` imports torch (with Dynamo) once, then forks one child per case."""

import json
import os
import sys
import time
import traceback

from .probe import import_torch
from .records import HARNESS_LOADED_AT, json_safe
from .run import run_command


class ServedCase:
    """What a forked child knows about how it was started (Run.record_interpreter_start)."""

    def __init__(self, fork_seconds):
        self.fork_seconds = fork_seconds


def worker_marker(token, kind, payload):
    """One control record on the server's stdout/stderr, written with a single os.write (atomic on a
    pipe below PIPE_BUF), so a child's output around it stays whole. Rust strips these from the tails."""
    return ("\x1egraphbreak-worker:%s:%s %s\n" % (token, kind, json.dumps(json_safe(payload)))).encode("utf-8")


def fork_unsafe_reason(torch, torch_error):
    """Why forking cases from this process would not be safe (None: it is). A Python thread alive after
    the imports may hold a lock (logging, import) that a forked child would wait on forever; CUDA cannot be
    used in a child forked after the parent initialized it. Native library pools (NumPy's OpenBLAS after
    `import torch`) shut themselves down around fork (pthread_atfork) and are only counted."""
    if not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return "the fork server needs Linux (this is %s)" % sys.platform
    if torch is None:
        return "torch cannot be imported: %s" % torch_error
    threads = threading_alive()
    if len(threads) > 1:
        return "%d Python threads alive after importing torch (%s)" % (len(threads), ", ".join(threads))
    cuda = getattr(torch, "cuda", None)
    try:
        if cuda is not None and cuda.is_initialized():
            return "CUDA was initialized while importing torch"
    except Exception:  # noqa: BLE001 - a torch without the query: nothing initialized it here
        pass
    return None


def forked_child_cannot_use_cuda(torch):
    """Forks a throw-away child that creates a CUDA context. Importing torch does not initialize CUDA,
    but a library's `torch.cuda.is_available()` at import (cudaGetDeviceCount) starts the driver, which a
    forked child then cannot use; torch.cuda.is_initialized() does not see that. None: the child could
    (or there is no CUDA at all, which every case then reports itself); else the reason."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            if not torch.cuda.is_available() or torch.zeros(1, device="cuda").add_(1).item() == 1.0:
                code = 0
        except BaseException:  # noqa: BLE001 - any failure means: do not fork cases that need CUDA
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status == 0:
        return None
    return "a forked child could not initialize CUDA (wait status %d): CUDA was touched while importing" % status


def threading_alive():
    threading = sys.modules.get("threading")
    if threading is None:
        return ["MainThread"]
    return [thread.name for thread in threading.enumerate()]


def native_thread_count():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def die_with_parent():
    """Linux: the child gets SIGKILL when the server dies (the server itself dies with graphbreak)."""
    try:
        import ctypes  # noqa: PLC0415 - only in forked children

        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except Exception:  # noqa: BLE001 - without it the child still dies with its process group
        pass


def serve_child(command, ready_at, server_pid, token):
    """The forked child: its own process group (Rust's timeout kills the group), the case's cwd (its
    environment is the server's, started with the lane's), then the same run as `harness.py run`. Once
    the result file is final it says `done` (on stderr, then stdout): graphbreak moves on while this
    process exits — tearing down a CUDA context that held gigabytes takes seconds, and overlaps the next
    case. Never returns."""
    code = 70
    try:
        started = time.time()
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
        die_with_parent()
        if os.getppid() != server_pid:
            os._exit(code)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.chdir(command["cwd"])
        sent_at = float(command.get("sent_at") or started)
        fork_seconds = max(0.0, started - max(sent_at, ready_at))
        code = run_command(command["request"], command["result"], ServedCase(fork_seconds))
        sys.stdout.flush()
        sys.stderr.flush()
        done = {"n": command.get("n"), "code": code}
        os.write(2, worker_marker(token, "done", done))
        os.write(1, worker_marker(token, "done", done))
    except BaseException:  # noqa: BLE001 - the child must end here, never return into the server loop
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve_command(token, device="auto"):
    """Reads one JSON command per line on stdin ({"n", "request", "result", "cwd", "sent_at"}) and
    forks a child per command; reports `ready` once, then per case `start` (child pid), the child's own
    `done` (result final) and `end` (raw wait status, after the exit) as marker records (worker_marker).
    A child may still be exiting when the next command comes: children are reaped as they end. Exits at
    EOF on stdin or when forking is unsafe. The server's start-up (interpreter, torch import, the CUDA
    check) is in `ready`; graphbreak reports it once per server."""
    import select  # noqa: PLC0415
    import signal  # noqa: PLC0415

    phases = {}
    spawned = os.environ.get("GRAPHBREAK_SPAWNED_AT")
    try:
        seconds = HARNESS_LOADED_AT - float(spawned)
        if 0.0 <= seconds < 3600.0:
            phases["interpreter_start"] = round(seconds, 4)
    except (TypeError, ValueError):
        pass
    started = time.perf_counter()
    torch, torch_error = import_torch(with_dynamo=True)
    phases["torch_import"] = round(time.perf_counter() - started, 4)
    reason = fork_unsafe_reason(torch, torch_error)
    if reason is None and device != "cpu":
        started = time.perf_counter()
        reason = forked_child_cannot_use_cuda(torch)
        phases["cuda_check"] = round(time.perf_counter() - started, 4)
    ready_at = time.time()
    server_pid = os.getpid()
    ready = {
        "fork_safe": reason is None, "reason": reason, "phases": phases, "pid": server_pid,
        "native_threads": native_thread_count(),
    }
    sys.stdout.flush()
    sys.stderr.flush()
    os.write(1, worker_marker(token, "ready", ready))
    if reason is not None:
        return 0
    running = {}
    pending = b""
    while True:
        while running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                running.clear()
                break
            if pid == 0:
                break
            number = running.pop(pid, None)
            try:
                os.killpg(pid, signal.SIGKILL)  # compile workers the case left behind
            except OSError:
                pass
            os.write(2, worker_marker(token, "end", {"n": number}))
            os.write(1, worker_marker(token, "end", {"n": number, "status": status}))
        readable, _, _ = select.select([0], [], [], 0.02 if running else 1.0)
        if not readable:
            continue
        chunk = os.read(0, 65536)
        if not chunk:
            return 0
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if not line.strip():
                continue
            command = json.loads(line.decode("utf-8"))
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                serve_child(command, ready_at, server_pid, token)
            try:
                os.setpgid(pid, pid)  # also here: the group must exist before graphbreak learns the pid
            except OSError:
                pass
            running[pid] = command.get("n")
            os.write(1, worker_marker(token, "start", {"n": command.get("n"), "pid": pid}))
