"""Tests that drive graphbreak through the real tools users combine it with: a SARIF 2.1.0 schema
validator, an XML parser, maturin, pip, venv and pre-commit.

Run with the tools venv that scripts/test.sh creates (pinned maturin, pre-commit, jsonschema, pytest),
after `cargo build` (the debug binary is the one under test, except where a test builds the wheel).
"""

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def graphbreak_bin() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("GRAPHBREAK_BIN", REPO / "target" / "debug" / "graphbreak"))
    if not path.is_file():
        # Build it rather than skip: a missing binary must fail loudly, never pass.
        subprocess.run(["cargo", "build", "--locked"], cwd=REPO, check=True)
    assert path.is_file(), f"{path} missing after cargo build"
    return path
