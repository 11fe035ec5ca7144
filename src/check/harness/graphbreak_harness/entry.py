"""The one entry: `harness.py env | run | serve` (the fork server's children end in the same run_command)."""

import sys

from .fork_server import serve_command
from .probe import env_command
from .run import run_command


USAGE = "usage: harness.py env | harness.py run REQUEST.json RESULT.json | harness.py serve TOKEN [DEVICE]"


def main(argv):
    if len(argv) == 2 and argv[1] == "env":
        return env_command()
    if len(argv) == 4 and argv[1] == "run":
        return run_command(argv[2], argv[3])
    if len(argv) in (3, 4) and argv[1] == "serve":
        return serve_command(*argv[2:])
    sys.stderr.write(USAGE + "\n")
    return 2
