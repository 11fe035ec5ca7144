#!/usr/bin/env python3
"""Print a draw's venv: `venv` in DRAW_DIR/libs.toml, else measure.py's default (the first draw had none)."""
import sys
import tomllib
from pathlib import Path

doc = tomllib.loads((Path(sys.argv[1]) / "libs.toml").read_text())
print(doc.get("venv", "/work/venvs/eval"))
