#!/usr/bin/env bash
# Benchmark of `graphbreak check` itself: what a re-run on unchanged code costs once the compile
# caches are warm, and how much of a run is graphbreak's own work rather than the cases'.
#
#   bash scripts/bench_check.sh [TARGET...]        (default: the Inductor cases of corpus/cases)
#
# Uses $GRAPHBREAK_PYTHON (default .venv/bin/python, created by scripts/test.sh). Runs each target
# twice against an empty cache directory (cold, then warm) and prints a table.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${GRAPHBREAK_PYTHON:-$PWD/.venv/bin/python}"
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(corpus/cases/clean.py::case_clean_mlp corpus/cases/bench.py::case_convnet)
cargo build --release --quiet
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache"

for run in cold warm; do
  start=$(date +%s.%N)
  ./target/release/graphbreak check --python "$PY" "${TARGETS[@]}" \
    --output-format json --output "$WORK/$run.json" --jsonl "$WORK/$run.jsonl" >/dev/null 2>"$WORK/$run.err" || true
  end=$(date +%s.%N)
  echo "$start $end" > "$WORK/$run.wall"
done

python3 - "$WORK" <<'PY'
import json, sys, pathlib
work = pathlib.Path(sys.argv[1])
rows = {}
for run in ("cold", "warm"):
    start, end = map(float, (work / f"{run}.wall").read_text().split())
    results = [json.loads(l) for l in (work / f"{run}.jsonl").read_text().splitlines() if l.strip()]
    cases_wall = sum(r.get("wall_seconds") or 0 for r in results)
    compile_s = sum(r.get("compile_seconds") or 0 for r in results)
    rows[run] = dict(total=end - start, cases=cases_wall, compile=compile_s,
                     cache=",".join(sorted({str(r.get("compile_cache")) for r in results})),
                     statuses=",".join(r["status"] for r in results))
print("| run | total wall s | Σ case subprocess s | Σ first-compile s | cache | graphbreak's own s (share) | statuses |")
print("|---|---:|---:|---:|---|---:|---|")
for run, r in rows.items():
    own = r["total"] - r["cases"]
    print(f"| {run} | {r['total']:.1f} | {r['cases']:.1f} | {r['compile']:.2f} | {r['cache']} | {own:.2f} ({own / r['total']:.1%}) | {r['statuses']} |")
cold, warm = rows["cold"], rows["warm"]
print(f"\nwarm re-run: {warm['total'] / cold['total']:.0%} of the cold run's wall time; "
      f"first-compile seconds {cold['compile']:.2f} -> {warm['compile']:.2f} ({warm['compile'] / max(cold['compile'], 1e-9):.0%})")
print("graphbreak's own time = total wall minus the case subprocesses: target parsing, the interpreter probe "
      "(one `python harness.py env`, which imports torch), report writing.")
PY
