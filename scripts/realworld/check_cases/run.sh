#!/usr/bin/env bash
# Runs the real-model cases through `graphbreak check --backend eager` on CPU (the pyproject beside this
# script lists them) and summarizes recall/precision per library.
# usage: scripts/realworld/check_cases/run.sh [OUT_DIR] [TARGETS...]
#   env: MODELS_VENV (default /work/venvs/models), GRAPHBREAK (default target/release/graphbreak)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
venv=${MODELS_VENV:-/work/venvs/models}
graphbreak=${GRAPHBREAK:-$root/target/release/graphbreak}
out=$(mkdir -p "${1:-$here/out}" && cd "${1:-$here/out}" && pwd)
shift || true
cd "$here"
status=0
"$graphbreak" check --python "$venv/bin/python" --output-format json --output "$out/report.json" \
  --jsonl "$out/results.jsonl" "$@" || status=$?
# Exit 1 = some case did not run cleanly (a compile error is a finding here): still summarize.
if [ "$status" -gt 1 ]; then exit "$status"; fi
python3 "$here/summarize.py" "$out/report.json" > "$out/summary.md"
cat "$out/summary.md"
