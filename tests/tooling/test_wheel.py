"""graphbreak installed the way Python users install linters: the maturin wheel (built once per
session, `bindings = "bin"`) in a fresh venv puts `graphbreak` on that venv's PATH; `check` defaults
to that venv's interpreter; and the real pre-commit runs this repository's hook (`language: python`)
from a fresh git repository, rejecting a hazardous `forward` and accepting the fix.

Slow on a cold machine: one release build of the crate (reused by the pre-commit install through
CARGO_TARGET_DIR). Needs PyPI (pip fetches maturin for pre-commit's isolated build) and the cargo
registry (crates.io or its local cache); nothing else from the network.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import pytest

from conftest import REPO

BIN = "Scripts" if os.name == "nt" else "bin"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}

HAZARD = """import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        if torch.isnan(x).any():
            x = torch.nan_to_num(x)
        return x
"""

FIXED = """import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        return torch.nan_to_num(x)
"""


def run(cmd, **kwargs):
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    kwargs.setdefault("timeout", 1200)
    return subprocess.run([str(c) for c in cmd], **kwargs)


def tool(name):
    """An executable of the tools venv running these tests (maturin, pre-commit)."""
    path = pathlib.Path(sys.executable).parent / name
    assert path.exists(), f"{path}: run these tests with the tools venv of scripts/test.sh"
    return path


@pytest.fixture(scope="session")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheels")
    built = run([tool("maturin"), "build", "--release", "--out", out], cwd=REPO)
    assert built.returncode == 0, built.stdout + built.stderr
    wheels = list(out.glob("graphbreak-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def fresh_venv(path: pathlib.Path) -> pathlib.Path:
    made = run([sys.executable, "-m", "venv", path])
    assert made.returncode == 0, made.stderr
    return path


def install(venv: pathlib.Path, wheel: pathlib.Path):
    # --no-index: the wheel carries everything; nothing is fetched.
    done = run([venv / BIN / "python", "-m", "pip", "install", "--no-index", "--quiet", wheel])
    assert done.returncode == 0, done.stdout + done.stderr


def clean_env(**extra):
    """The environment of a user who has not activated anything and set no graphbreak variable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHBREAK_", "VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = os.pathsep.join(["/usr/bin", "/bin"])
    env.update(extra)
    return env


def test_the_wheel_puts_graphbreak_on_the_venvs_path(wheel, tmp_path):
    venv = fresh_venv(tmp_path / "venv")
    install(venv, wheel)
    exe = venv / BIN / "graphbreak"
    assert exe.is_file()
    version = run([exe, "--version"])
    assert version.stdout.strip() == "graphbreak 0.1.0", version
    # Activated the usual way, `graphbreak` is found on PATH.
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "model.py").write_text(HAZARD)
    env = clean_env(PATH=os.pathsep.join([str(venv / BIN), "/usr/bin", "/bin"]), VIRTUAL_ENV=str(venv))
    scanned = run(["graphbreak", "scan"], cwd=project, env=env)
    assert scanned.returncode == 1, scanned.stdout + scanned.stderr
    assert "pkg/model.py:7:12: BR001" in scanned.stdout
    (project / "pkg" / "model.py").write_text(FIXED)
    assert run(["graphbreak", "scan"], cwd=project, env=env).returncode == 0


def torch_site_packages() -> pathlib.Path:
    python = os.environ.get("GRAPHBREAK_PYTHON")
    assert python, "GRAPHBREAK_PYTHON must name a Python with torch (scripts/test.sh sets it)"
    found = run(
        [python, "-c", "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))"],
        cwd=REPO,
    )
    assert found.returncode == 0, f"{python} cannot import torch: {found.stderr}"
    return pathlib.Path(found.stdout.strip())


CASE = """import torch


def case_double():
    return (lambda x: x * 2), (torch.ones(3),)
"""


def check_interpreter(exe: pathlib.Path, project: pathlib.Path, cache: pathlib.Path) -> dict:
    done = run(
        [exe, "check", "cases.py", "--backend", "eager", "--no-measure", "--output-format", "json"],
        cwd=project,
        env=clean_env(XDG_CACHE_HOME=str(cache)),
        timeout=600,
    )
    report = json.loads(done.stdout)
    return report["results"][0]


def test_check_defaults_to_the_python_of_the_venv_it_is_installed_in(wheel, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "cases.py").write_text(CASE)
    # A user's venv that holds torch (linked in by a .pth rather than a 1 GB install).
    venv = fresh_venv(tmp_path / "with-torch")
    install(venv, wheel)
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "torch-from-test.pth").write_text(f"{torch_site_packages()}\n")
    result = check_interpreter(venv / BIN / "graphbreak", project, tmp_path / "cache")
    assert result["status"] == "ok", result
    assert result["python_executable"] == str(venv / BIN / "python"), result

    # A tool venv without torch (pipx, the pre-commit hook's) is not used: python3 on PATH is.
    bare = fresh_venv(tmp_path / "tool-venv")
    install(bare, wheel)
    result = check_interpreter(bare / BIN / "graphbreak", project, tmp_path / "cache")
    assert result["python_executable"] != str(bare / BIN / "python"), result
    assert pathlib.Path(result["python_executable"]).parent == pathlib.Path("/usr/bin"), result


def snapshot_of_this_repository(dest: pathlib.Path) -> str:
    """This repository's working tree (tracked and untracked-but-not-ignored files) as a commit in a
    git repository at `dest`: the hook under test is what is on disk, committed or not."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO)
    assert listed.returncode == 0, listed.stderr
    for name in filter(None, listed.stdout.split("\0")):
        source = REPO / name
        if not source.is_file():  # deleted but still in the index
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    env = {**os.environ, **GIT_ENV}
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "snapshot"]):
        done = run(cmd, cwd=dest, env=env)
        assert done.returncode == 0, done.stderr
    return run(["git", "rev-parse", "HEAD"], cwd=dest).stdout.strip()


def test_pre_commit_runs_the_hook_from_the_wheel(wheel, tmp_path):
    source = tmp_path / "graphbreak-src"
    rev = snapshot_of_this_repository(source)
    hook = (source / ".pre-commit-hooks.yaml").read_text()
    assert "language: python" in hook

    user = tmp_path / "user-repo"
    (user / "pkg").mkdir(parents=True)
    (user / "pkg" / "model.py").write_text(HAZARD)
    (user / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {source}\n    rev: {rev}\n    hooks:\n      - id: graphbreak\n"
    )
    env = {
        **os.environ,
        **GIT_ENV,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        # The release build of the `wheel` fixture: the hook's install recompiles only the crate.
        "CARGO_TARGET_DIR": str(REPO / "target"),
    }
    env.pop("VIRTUAL_ENV", None)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"]):
        assert run(cmd, cwd=user, env=env).returncode == 0

    started = time.monotonic()
    rejected = run([tool("pre-commit"), "run", "--all-files"], cwd=user, env=env)
    first_run = time.monotonic() - started
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode == 1, output
    assert "pkg/model.py:7:12: BR001" in output, output
    assert "Failed" in output, output
    # The hook's environment is a Python venv holding the wheel's binary.
    envs = list((tmp_path / "pre-commit-home").glob(f"repo*/py_env-*/{BIN}/graphbreak"))
    assert len(envs) == 1, envs

    (user / "pkg" / "model.py").write_text(FIXED)
    assert run(["git", "add", "-A"], cwd=user, env=env).returncode == 0
    accepted = run([tool("pre-commit"), "run", "--all-files"], cwd=user, env=env)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "Passed" in accepted.stdout
    print(f"pre-commit first run (install + scan): {first_run:.1f} s", file=sys.stderr)
