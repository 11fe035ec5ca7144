#!/usr/bin/env bash
# Runs one drawn library's cases (or all) through `graphbreak check --backend eager` on CPU, torch 2.11,
# writing results/<lib>.jsonl and results/<lib>.report.json beside this script.
# usage: run.sh LIB [LIB...]      LIB: vit diffusion doctr forecasting effdet speechbrain
#   env: EVAL_VENV (default /work/venvs/eval3), GRAPHBREAK (default /work/main/target/release/graphbreak),
#        CHECK_TIMEOUT (seconds per case, default 600)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${EVAL_VENV:-/work/venvs/eval3}
graphbreak=${GRAPHBREAK:-/work/main/target/release/graphbreak}
mkdir -p "$here/results"
cd "$here"
for lib in "$@"; do
  mapfile -t ids < <(python3 node_ids.py "$lib")
  echo "[run] $lib: ${#ids[@]} cases" >&2
  status=0
  "$graphbreak" check --python "$venv/bin/python" --device cpu --backend eager --no-measure \
    --timeout "${CHECK_TIMEOUT:-600}" --output-format json --output "results/$lib.report.json" \
    --jsonl "results/$lib.jsonl" "${ids[@]}" || status=$?
  # 1 = some case did not finish cleanly (a compile error is a finding here): keep going.
  if [ "$status" -gt 1 ]; then echo "[run] $lib: graphbreak check exited $status" >&2; exit "$status"; fi
done
