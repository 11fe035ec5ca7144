#!/usr/bin/env python3
"""Keep only what measure.py reads from a draw's recorded check results (the full records are ~100 MB:
trace maps of torch's own files, the in-process cross-check): per case its id, status, break count,
error, runtime events, and the traced lines of the drawn libraries' own files. The report.json copies
repeat the jsonl records and are dropped. Run once after run.sh; truth.json must not change.
usage: slim_results.py DRAW_DIR      (shared by every fresh draw)"""
import json
import sys
import tomllib
from pathlib import Path

if len(sys.argv) != 2:
    sys.exit("usage: slim_results.py DRAW_DIR")
draw = Path(sys.argv[1]).resolve()
cfg = tomllib.loads((draw / "libs.toml").read_text())
site = next(Path(cfg.get("venv", "/work/venvs/eval")).glob("lib/python3*/site-packages"))
packages = [str(site / lib["package"]) for lib in cfg["lib"]]
KEEP = ("case", "status", "graph_break_count", "error", "runtime_events")
for path in sorted((draw / "results").glob("*.report.json")):
    path.unlink()
for path in sorted((draw / "results").glob("*.jsonl")):
    out = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        slim = {k: r[k] for k in KEEP if k in r}
        if "device_run" in r:  # recorded on the device machine (the third draw's README says how)
            slim["device_run"] = r["device_run"]
        if r.get("traced") is not None:
            slim["traced"] = {f: l for f, l in r["traced"].items() if any(f.startswith(p + "/") for p in packages)}
        out.append(json.dumps(slim, sort_keys=True))
    path.write_text("\n".join(out) + "\n")
