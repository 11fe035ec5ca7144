#!/usr/bin/env python3
"""Print the check node ids of a draw's pyproject.toml cases whose file matches a library, one a line.

usage: node_ids.py DRAW_DIR [LIB]     (LIB: the cases file's stem without `cases_`; none = every case)

The matrix expands as graphbreak check expands it (keys in sorted order, cartesian product), so a run of
one library's cases by node id is the same set the pyproject lists. Shared by every fresh draw.
"""

import itertools
import sys
import tomllib
from pathlib import Path

if len(sys.argv) < 2:
    sys.exit("usage: node_ids.py DRAW_DIR [LIB]")
pyproject = Path(sys.argv[1]) / "pyproject.toml"
if not pyproject.is_file():
    sys.exit(f"node_ids.py: {pyproject} is missing")
cases = tomllib.loads(pyproject.read_text())["tool"]["graphbreak"]["check"]["cases"]
lib = sys.argv[2] if len(sys.argv) > 2 else ""
for case in cases:
    if isinstance(case, str):
        case = {"target": case, "params": {}}
    if f"cases_{lib}" not in case["target"]:
        continue
    keys = sorted(case["params"])
    values = [v if isinstance(v, list) else [v] for v in (case["params"][k] for k in keys)]
    for combo in itertools.product(*values):
        if not keys:
            print(case["target"])
            continue
        fmt = lambda v: str(v).lower() if isinstance(v, bool) else str(v)  # noqa: E731
        print(case["target"] + "[" + ",".join(f"{k}={fmt(v)}" for k, v in zip(keys, combo)) + "]")
