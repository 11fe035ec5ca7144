"""graphbreak check harness: runs one case under real torch and writes what happened as JSON.

Embedded in the graphbreak binary (with the graphbreak_harness package beside it, one module per concern)
and run as a subprocess, one per (case, interpreter), or as a fork server:

    python -X faulthandler harness.py run request.json result.json
    python harness.py env
    python harness.py serve TOKEN [DEVICE]

The request/result contract is shared with the Rust side (src/check/*.rs): keep both in step.
Constraints: stdlib + torch only, Python 3.9+, torch 2.2 through current. Every torch API that
moved between versions is feature-detected (hasattr / try), never assumed from a version number.
"""

import os
import sys

from graphbreak_harness.entry import main

if __name__ == "__main__":
    exit_code = main(sys.argv)
    if len(sys.argv) > 1 and sys.argv[1] in ("run", "serve"):
        # The result file is written. Interpreter teardown with torch loaded (module finalizers, compile
        # worker pools) took seconds of every case's wall time; Rust kills whatever the case left running.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(exit_code)
    sys.exit(exit_code)
