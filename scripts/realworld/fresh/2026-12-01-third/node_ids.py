"""Print the check node ids of pyproject.toml's cases whose file matches a library (argv[1]), one a line.

The matrix expands as graphbreak check expands it (keys in sorted order, cartesian product), so a run of
one library's cases by node id is the same set the pyproject lists.
"""

import itertools
import sys
import tomllib
from pathlib import Path

cases = tomllib.loads((Path(__file__).parent / "pyproject.toml").read_text())["tool"]["graphbreak"]["check"]["cases"]
lib = sys.argv[1] if len(sys.argv) > 1 else ""
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
