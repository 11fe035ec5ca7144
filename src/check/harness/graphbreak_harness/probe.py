"""The environment probe (`harness.py env`) and importing torch."""

import contextlib
import json
import os
import platform
import re
import subprocess
import sys

from .records import MESSAGE_LIMIT, json_safe, truncate


# --------------------------------------------------------------------------------------------
# environment probe


def nvidia_driver_version():
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8") as handle:
            # "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
            match = re.search(r"Kernel Module\b.*?\s(\d+\.\d+(?:\.\d+)?)\s", handle.read())
            if match:
                return match.group(1)
    except OSError:
        pass
    try:
        completed = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if completed.returncode == 0 and completed.stdout.strip():
            return completed.stdout.strip().splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return None


def import_torch(with_dynamo=False):
    """Returns (torch module or None, error string or None). Import chatter goes to stderr.
    `with_dynamo`: also import torch._dynamo (seconds of imports that torch itself defers to the first
    torch.compile / torch._dynamo use: counted as torch_import, not as compile)."""
    try:
        with contextlib.redirect_stdout(sys.stderr):
            import torch  # noqa: PLC0415 - torch may be missing; that is a reportable state
        if with_dynamo:
            try:
                with contextlib.redirect_stdout(sys.stderr):
                    import torch._dynamo  # noqa: PLC0415, F401
            except Exception:  # noqa: BLE001 - a torch without Dynamo fails later, at compile, with its error
                pass
        return torch, None
    except BaseException as error:  # noqa: BLE001 - a broken install can raise anything
        return None, "%s: %s" % (type(error).__name__, truncate(error, MESSAGE_LIMIT))


def environment_info(torch, torch_error):
    info = {
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "torch_version": None,
        "torch_error": torch_error,
        "cuda_available": False,
        "cuda_version": None,
        "gpu_name": None,
        "driver_version": None,
        "platform": platform.platform(),
    }
    if torch is None:
        return info
    info["torch_version"] = str(torch.__version__)
    # What CPU timings depend on: a busy machine or oversubscribed threads distort eager steps.
    info["cpu_count"] = os.cpu_count()
    try:
        info["torch_threads"] = torch.get_num_threads()
        info["load_average"] = round(os.getloadavg()[0], 2)
    except (AttributeError, OSError, RuntimeError):
        info["load_average"] = None
    try:
        info["cuda_version"] = getattr(torch.version, "cuda", None)
        info["cuda_available"] = bool(torch.cuda.is_available())
        if info["cuda_available"]:
            info["gpu_name"] = torch.cuda.get_device_name(0)
            info["driver_version"] = nvidia_driver_version()
    except Exception as error:  # noqa: BLE001 - a broken CUDA setup is a fact, not a crash
        info["torch_error"] = "CUDA probe failed: %s: %s" % (type(error).__name__, truncate(error, 500))
    return info


def initialize_device(torch, requested, environment):
    """Creates the CUDA context now, so its seconds count as device_init rather than as the first step's."""
    if requested == "cpu" or not environment.get("cuda_available"):
        return
    try:
        torch.zeros(1, device="cuda")
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001 - a broken CUDA setup surfaces in the case's own steps
        pass


def env_command():
    torch, torch_error = import_torch()
    info = environment_info(torch, torch_error)
    if torch is not None:
        # The build, not only the version string: graphbreak's result cache keys on it (src/check/cache.rs).
        info["torch_git_version"] = getattr(torch.version, "git_version", None)
        info["torch_file"] = os.path.abspath(torch.__file__)
    print(json.dumps(json_safe(info)))
    return 0
