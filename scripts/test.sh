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
  # --no-cache-dir: torch with its CUDA libraries is several GB; a cached copy doubles the disk it
  # needs (CI once ran out of disk in this step).
  "$VENV/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check "${PY_PINS[@]}"
fi
# The HTML report is tested in a real headless browser (tests/check_html.rs): Debian's chromium.
if ! command -v "${GRAPHBREAK_CHROMIUM:-chromium}" >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing chromium (apt-get)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: apt-get install chromium (as root), or set GRAPHBREAK_CHROMIUM" >&2
    exit 1
  fi
fi
export GRAPHBREAK_REQUIRE_BROWSER=1
# GRAPHBREAK_TEST_VENV may be absolute (an existing venv elsewhere) or relative to the repo root.
case "$VENV" in
  /*) export GRAPHBREAK_PYTHON="$VENV/bin/python" ;;
  *) export GRAPHBREAK_PYTHON="$PWD/$VENV/bin/python" ;;
esac
# The check tests skip without torch only on a bare developer machine; here a missing torch must fail them.
export GRAPHBREAK_REQUIRE_TORCH=1

# The packaging and report tests (tests/tooling) drive real tools: a second venv with their pins,
# so the torch venv above keeps exactly CI's pins.
TOOLS_VENV="${GRAPHBREAK_TOOLS_VENV:-.venvs/tools}"
TOOL_PINS=("maturin==1.16.0" "pre-commit==4.7.0" "jsonschema==4.26.0" "pytest==9.2.0")
if ! "$TOOLS_VENV/bin/python" - <<'PY' 2>/dev/null
import importlib.metadata as md, sys
want = {"maturin": "1.16.0", "pre-commit": "4.7.0", "jsonschema": "4.26.0", "pytest": "9.2.0"}
sys.exit(0 if all(md.version(k) == v for k, v in want.items()) else 1)
PY
then
  echo "==> creating $TOOLS_VENV with ${TOOL_PINS[*]}"
  python3 -m venv "$TOOLS_VENV"
  "$TOOLS_VENV/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check "${TOOL_PINS[@]}"
fi
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
echo "==> pytest tests/tooling (SARIF schema, JUnit, wheel + venv + pre-commit; one release build)"
"$TOOLS_VENV/bin/python" -m pytest tests/tooling -q -p no:cacheprovider
