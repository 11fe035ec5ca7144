#!/usr/bin/env bash
# Runs some of one library's cases (node ids given, or read from a file with -f) as one part,
# writing results/<lib>-<part>.jsonl (measure.py reads results/<lib>.jsonl and every results/<lib>-*.jsonl).
# usage: run_part.sh LIB PART NODE_ID...      (same env as run.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${EVAL_VENV:-/work/venvs/eval3}
graphbreak=${GRAPHBREAK:-/work/main/target/release/graphbreak}
lib=$1; part=$2; shift 2
mkdir -p "$here/results"
cd "$here"
echo "[run] $lib-$part: $# cases" >&2
status=0
"$graphbreak" check --python "$venv/bin/python" --device cpu --backend eager --no-measure \
  --timeout "${CHECK_TIMEOUT:-600}" --output-format json --output "results/$lib-$part.report.json" \
  --jsonl "results/$lib-$part.jsonl" "$@" || status=$?
if [ "$status" -gt 1 ]; then echo "[run] $lib-$part: graphbreak check exited $status" >&2; exit "$status"; fi
