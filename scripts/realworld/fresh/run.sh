#!/usr/bin/env bash
# Runs drawn libraries' cases (every case of each LIB in DRAW_DIR/pyproject.toml) through `graphbreak check
# --backend eager` on CPU, writing DRAW_DIR/results/<lib>.jsonl and .report.json. Shared by every fresh draw.
# usage: run.sh DRAW_DIR LIB [LIB...]     (same env as run_part.sh)
set -euo pipefail
fresh=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: run.sh DRAW_DIR LIB [LIB...]" >&2; exit 2; }
draw=$1; shift
for lib in "$@"; do
  mapfile -t ids < <(python3 "$fresh/node_ids.py" "$draw" "$lib")
  [ "${#ids[@]}" -gt 0 ] || { echo "[run] $lib: no cases in $draw/pyproject.toml" >&2; exit 2; }
  "$fresh/run_part.sh" "$draw" "$lib" - "${ids[@]}"
done
