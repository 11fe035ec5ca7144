"""Shared set-up and helpers of the Python tests (imported as `from conftest import ...`; pytest puts this
folder on sys.path). The check harness's package is importable as the binary unpacks it: src/check/harness/
holds the entry script harness.py and the graphbreak_harness package beside it."""

import importlib
import re
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HARNESS_ROOT = REPO / "src" / "check" / "harness"
CORPUS_DIR = REPO / "corpus" / "rules"
CASES = REPO / "corpus" / "cases"

if str(HARNESS_ROOT) not in sys.path:
    sys.path.insert(0, str(HARNESS_ROOT))


class _FrameLogger:
    """A logger like many logging libraries': it finds its caller's frame with `sys._getframe`
    (which Dynamo refuses: GB0007 on torch 2.11)."""

    def __init__(self):
        self.records = []

    def warning(self, message, *args):
        caller = sys._getframe(1)
        self.records.append((caller.f_code.co_name, caller.f_lineno, message % args if args else message))


# corpus/rules/BR004/positive.py imports `frame_logging`, a logging library outside the scanned
# project. It is installed here, not as a .py file in the repository, which the scan would count
# as project code.
if "frame_logging" not in sys.modules:
    _frame_logging = types.ModuleType("frame_logging")
    _frame_logging.FrameLogger = _FrameLogger
    _frame_logging.logger = _FrameLogger()
    sys.modules["frame_logging"] = _frame_logging


def torch_version() -> tuple:
    """(major, minor) of the installed torch."""
    import torch  # noqa: PLC0415 - conftest itself must load without torch

    return tuple(int(p) for p in re.findall(r"\d+", torch.__version__)[:2])


def fullgraph_error(fn, args) -> Exception | None:
    """What Dynamo raises compiling `fn` with fullgraph=True (backend "eager") and calling it on `args`
    (a refused break), or None when the whole call traces as one graph."""
    import warnings  # noqa: PLC0415

    import torch  # noqa: PLC0415 - conftest itself must load without torch

    torch._dynamo.reset()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.compile(fn, backend="eager", fullgraph=True)(*args)
    except Exception as exc:  # what Dynamo refuses
        return exc
    finally:
        torch._dynamo.reset()
    return None


def load_corpus(code: str, name: str, namespace: str = "corpus") -> types.ModuleType:
    """Import corpus/rules/<code>/<name>.py as a module of a package, so relative imports work. Each test
    file passes its own `namespace`, so no two files share (and mutate) one module object."""
    package = f"_graphbreak_{namespace}_{code}"
    if package not in sys.modules:
        module = types.ModuleType(package)
        module.__path__ = [str(CORPUS_DIR / code)]
        sys.modules[package] = module
    return importlib.import_module(f"{package}.{name}")


def resolve(dotted: str):
    """The object a dotted name names (`Tensor.x`: torch.Tensor's; else the attribute of the longest
    importable module prefix, as the tables' generators read `vars(module)[name]`: a function that
    shadows a submodule of the same name, `networkx.algorithms.non_randomness`, is the function;
    the name itself imported as a module only when no prefix has the attribute)."""
    if dotted.startswith("Tensor."):
        import torch  # noqa: PLC0415

        return getattr(torch.Tensor, dotted.split(".", 1)[1])
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for attr in parts[split:]:
                obj = getattr(obj, attr)
        except AttributeError:
            break
        return obj
    return importlib.import_module(dotted)


@pytest.fixture(autouse=True)
def _forget_corpus_packages():
    """Fixture packages under corpus/ share top-level names (several are `pkg`): a module one test
    imported from one fixture must not answer another test's import from a different fixture, so
    every module loaded from corpus/ is dropped from `sys.modules` after each test."""
    yield
    corpus = REPO / "corpus"
    for name, module in list(sys.modules.items()):
        # A namespace package has no __file__, only the folders on its __path__.
        path = getattr(module, "__path__", None)
        places = [getattr(module, "__file__", None)]
        if isinstance(path, (list, tuple)) or type(path).__name__ == "_NamespacePath":
            places += list(path)
        if any(isinstance(place, str) and corpus in Path(place).resolve().parents for place in places):
            del sys.modules[name]
