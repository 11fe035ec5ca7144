"""Slim the device's per-case results as slim_results.py does (case, status, break count, error, runtime events,
traced lines of the six drawn libraries' own files; `cross_check` and the report.json copies dropped unread), with
the device's /tmp/site/ paths rewritten to this draw's venv (the same wheel files: byte-identical library sources).
usage: device_slim.py SRC_DIR OUT_DIR"""
import json
import sys
from pathlib import Path

src, out = Path(sys.argv[1]), Path(sys.argv[2])
SITE = "/work/venvs/eval4/lib/python3.11/site-packages/"
PKGS = ["chronos", "e3nn", "gpytorch", "torch_geometric", "lightly", "torchtune"]
KEEP = ("case", "status", "graph_break_count", "error", "runtime_events")
per_lib = {}


def fix(s):
    return s.replace("/tmp/site/", SITE) if isinstance(s, str) else s


for p in sorted(src.glob("r_*.jsonl")):
    for line in p.read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        slim = {k: r[k] for k in KEEP if k in r}
        for ev in slim.get("runtime_events") or []:
            if isinstance(ev, dict) and "filename" in ev:
                ev["filename"] = fix(ev["filename"])
        if r.get("traced") is not None:
            slim["traced"] = {fix(f): l for f, l in r["traced"].items()
                              if any(f.startswith("/tmp/site/" + k + "/") for k in PKGS)}
        slim["device_run"] = True
        lib = p.name.split("cases_")[1].split(".py")[0] if "cases_" in p.name else "unknown"
        per_lib.setdefault(lib, []).append(json.dumps(slim, sort_keys=True))
for lib, rows in per_lib.items():
    (out / f"{lib}-device.jsonl").write_text("\n".join(rows) + "\n")
    print(lib, len(rows))
