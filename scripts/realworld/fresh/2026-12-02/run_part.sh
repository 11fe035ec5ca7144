#!/usr/bin/env bash
# Some of this draw's cases as one part through the shared runner (../run_part.sh): usage: run_part.sh LIB PART NODE_ID...
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../run_part.sh" "$here" "$@"
