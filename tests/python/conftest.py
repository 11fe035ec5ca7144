"""Shared set-up of the Python tests: the check harness's package is importable as the binary unpacks it
(src/check/harness/ holds the entry script harness.py and the graphbreak_harness package beside it)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HARNESS_ROOT = REPO / "src" / "check" / "harness"

if str(HARNESS_ROOT) not in sys.path:
    sys.path.insert(0, str(HARNESS_ROOT))
