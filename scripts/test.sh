#!/usr/bin/env bash
# The whole test suite on a fresh machine: a venv with pinned CPU-usable torch (real torch, never a
# mock), then lint, the Rust tests (which drive the real binary and the real harness), and the
# Python tests (which run every rule's positive case under real Dynamo).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${GRAPHBREAK_TEST_VENV:-.venv}"
TORCH_PIN="torch==2.11.0"
PY_PINS=("$TORCH_PIN" "pytest==9.2.0" "numpy==2.4.6")

if ! "$VENV/bin/python" - <<'PY' 2>/dev/null
import importlib.metadata as md, sys
want = {"torch": "2.11.0", "pytest": "9.2.0", "numpy": "2.4.6"}
sys.exit(0 if all(md.version(k).split("+")[0] == v for k, v in want.items()) else 1)
PY
then
  echo "==> creating $VENV with ${PY_PINS[*]}"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PY_PINS[@]}"
fi
# GRAPHBREAK_TEST_VENV may be absolute (an existing venv elsewhere) or relative to the repo root.
case "$VENV" in
  /*) export GRAPHBREAK_PYTHON="$VENV/bin/python" ;;
  *) export GRAPHBREAK_PYTHON="$PWD/$VENV/bin/python" ;;
esac
# The check tests skip without torch only on a bare developer machine; here a missing torch must fail them.
export GRAPHBREAK_REQUIRE_TORCH=1
# Keep the check harness's compile caches inside the tree so runs never touch the user's cache.
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-$PWD/target/test-cache}"

echo "==> cargo fmt --check"
cargo fmt --check
echo "==> cargo clippy"
cargo clippy --locked --all-targets -- -D warnings
echo "==> cargo test"
cargo test --locked
echo "==> pytest (real torch $("$GRAPHBREAK_PYTHON" -c 'import torch; print(torch.__version__)' 2>/dev/null))"
"$GRAPHBREAK_PYTHON" -m pytest tests/python -q -p no:cacheprovider
