"""This draw's node ids through the shared lister (../node_ids.py): usage: node_ids.py [LIB]"""
import runpy
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
sys.argv = [str(here.parent / "node_ids.py"), str(here), *sys.argv[1:]]
runpy.run_path(sys.argv[0], run_name="__main__")
