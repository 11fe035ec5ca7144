#!/usr/bin/env bash
# Runs some of one drawn library's cases through `graphbreak check --backend eager` on CPU, torch 2.11, as one part:
# DRAW_DIR/results/<lib>-<part>.jsonl (measure.py reads results/<lib>.jsonl and every results/<lib>-*.jsonl).
# With PART "-" the output is results/<lib>.jsonl (what run.sh writes). Shared by every fresh draw.
# usage: run_part.sh DRAW_DIR LIB PART NODE_ID...
#   env: EVAL_VENV (default: libs.toml's venv), GRAPHBREAK (default /work/main/target/release/graphbreak),
#        CHECK_TIMEOUT (seconds per case, default 600)
set -euo pipefail
fresh=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { echo "usage: run_part.sh DRAW_DIR LIB PART NODE_ID..." >&2; exit 2; }
draw=$(cd "$1" && pwd); lib=$2; part=$3; shift 3
venv=${EVAL_VENV:-$(python3 "$fresh/draw_venv.py" "$draw")}
graphbreak=${GRAPHBREAK:-/work/main/target/release/graphbreak}
name=$lib; [ "$part" = "-" ] || name=$lib-$part
mkdir -p "$draw/results"
cd "$draw"
echo "[run] $(basename "$draw") $name: $# cases" >&2
status=0
"$graphbreak" check --python "$venv/bin/python" --device cpu --backend eager --no-measure \
  --timeout "${CHECK_TIMEOUT:-600}" --output-format json --output "results/$name.report.json" \
  --jsonl "results/$name.jsonl" "$@" || status=$?
# 1 = some case did not finish cleanly (a compile error is a finding here): keep going.
if [ "$status" -gt 1 ]; then echo "[run] $name: graphbreak check exited $status" >&2; exit "$status"; fi
