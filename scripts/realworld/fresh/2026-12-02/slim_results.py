"""Slim this draw's results through the shared script (../slim_results.py)."""
import runpy
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
sys.argv = [str(here.parent / "slim_results.py"), str(here)]
runpy.run_path(sys.argv[0], run_name="__main__")
