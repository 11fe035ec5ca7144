#!/usr/bin/env bash
# This draw's cases through the shared runner (../run.sh): usage: run.sh LIB [LIB...]
# (venv: libs.toml's `venv`, or EVAL_VENV; GRAPHBREAK, CHECK_TIMEOUT as ../run_part.sh says)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../run.sh" "$here" "$@"
