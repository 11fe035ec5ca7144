"""Import torchgeo 0.10.1 on Python 3.11 (the interpreter torch 2.11 runs in here).

torchgeo 0.10.1 declares Requires-Python >=3.12, and exactly one function uses 3.12-only syntax: the PEP 695
generic `def convolution_arithmetic[T: (float, Timedelta)](...)` in torchgeo/samplers/utils.py, which every
`torchgeo.models` import reaches (models/copernicusfm.py imports torchgeo.samplers). This finder loads that one
module from the installed file with the type-parameter list removed and `T` bound on line 1 (a comment line),
so every line number is unchanged and no model code is touched; the installed file itself stays as released
(it is what the scan reads). Nothing else is rewritten.
"""

import importlib.abc
import importlib.util
import sys

TARGET = "torchgeo.samplers.utils"
GENERIC = "def convolution_arithmetic[T: (float, Timedelta)]("


class _Loader(importlib.abc.SourceLoader):
    def __init__(self, path):
        self.path = path

    def get_filename(self, fullname):
        return self.path

    def get_data(self, path):
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        assert lines[0].startswith("#") and sum(GENERIC in line for line in lines) == 1, "unexpected file"
        lines[0] = "import typing as _typing; T = _typing.TypeVar('T')  " + lines[0]
        return "\n".join(line.replace(GENERIC, "def convolution_arithmetic(") for line in lines).encode()


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.origin:
                return importlib.util.spec_from_file_location(fullname, spec.origin, loader=_Loader(spec.origin))
        return None


if sys.version_info < (3, 12) and not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.insert(0, _Finder())
