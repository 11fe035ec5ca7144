#!/usr/bin/env python3
"""Peer-suite recall: PyTorch's own graph-break tests as a benchmark for `graphbreak scan`.

The repo keeps only the *list* of cases (scripts/peer_suite/cases.toml): test name, the
function whose line Dynamo reports, the break line as an offset from that function's `def`,
and the GB code. The code itself is re-derived here from a PyTorch checkout's test files
(`--torch-tests DIR`, the repository root or its `test/` parent) and never committed:

1. restate: each listed test method's body becomes a module under the work dir
   (bench/.work/peer_suite, gitignored), with the test file's imports and helpers above it,
   so the compiled function and its `torch.compile(...)` call stand at module level;
2. confirm: a worker runs every module under the installed torch (the python given by
   --python), collecting graph breaks from Dynamo's `graph_breaks` log records and from the
   `Unsupported` errors of fullgraph compiles; a case counts only if Dynamo breaks at its line;
3. scan: `graphbreak scan --output-format json` on the restated modules; a breaking line is
   flagged when some finding starts on it.

`--write-cases` regenerates cases.toml from what the installed torch breaks on.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import re
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CASES = REPO / "scripts" / "peer_suite" / "cases.toml"
DEFAULT_WORKDIR = REPO / "bench" / ".work" / "peer_suite"
DEFAULT_SOURCES = ["test/dynamo/test_error_messages.py", "test/dynamo/test_misc.py"]

# Which tests of a source file are candidates. test_error_messages.py: every test (each one is
# about an error or a break). Other files (test_misc.py): a test whose body names one of these:
# it asserts a graph break or an unsupported construct (`Unsupported`, `graph_break_count`,
# `counters["graph_break"]`), counts frames (`frame_count`: more than one frame for one call is
# a break, the confirmation decides), or breaks on purpose (`graph_break`, the `unsupported`
# helper). Candidates are then confirmed under real Dynamo: only a line where Dynamo records a
# graph break (log record or fullgraph error) becomes a case.
ALL_TESTS_SOURCES = {"test/dynamo/test_error_messages.py"}
GRAPH_BREAK_MARKERS = re.compile(
    r"\b(Unsupported|UncapturedHigherOrderOpError|graph_break_count|graph_break|frame_count|unsupported)\b"
)


def is_graph_break_test(source: str, text: str) -> bool:
    return source in ALL_TESTS_SOURCES or bool(GRAPH_BREAK_MARKERS.search(text))

# Stand-ins for unittest's `self`, `records` and for test-only imports that need packages
# outside torch's runtime (expecttest): assertions become no-ops, so each module runs its
# compiled calls the way the test does and Dynamo's own reports say where it breaks.
HARNESS = '''\
"""Peer-suite harness (generated): stand-ins for the test case's `self` and log `records`."""
import contextlib
import sys

RAISED = []


class _Record:
    def getMessage(self):
        return ""


class _Records(list):
    def __getitem__(self, index):
        return _Record()


class _Self:
    def assertExpectedInlineMunged(self, exc_type, thunk, *args, **kwargs):
        try:
            thunk()
        except Exception as exc:  # the test expects it; keep it for the break report
            RAISED.append(exc)

    def _swallow(self, *args, **kwargs):
        # callable form, assertRaises(Exc, fn, *args): run fn now, keep what it raises
        if len(args) >= 2 and callable(args[1]):
            try:
                args[1](*args[2:], **kwargs)
            except Exception as exc:
                RAISED.append(exc)
            return None

        @contextlib.contextmanager
        def ctx():
            try:
                yield
            except Exception as exc:
                RAISED.append(exc)

        return ctx()

    assertRaises = assertRaisesRegex = assertWarnsOnceRegex = _swallow

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _noop(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return _noop


def munge_exc(text, *args, **kwargs):
    return str(text)


self = _Self()
records = _Records()


def __getattr__(name):
    return _noop
'''


def find_source(torch_tests: Path, rel: str, required: bool = True) -> Path | None:
    for cand in (torch_tests / rel, torch_tests / Path(rel).relative_to("test")):
        if cand.is_file():
            return cand
    if not required:
        return None
    sys.exit(f"error: {rel} not found under {torch_tests} (give the pytorch checkout root)")


def is_test_class(node: ast.ClassDef) -> bool:
    return any(
        isinstance(b, ast.FunctionDef) and b.name.startswith("test_") for b in node.body
    )


def header_for(tree: ast.Module, lines: list[str]) -> list[str]:
    """Imports (each guarded, since some need test-only packages) and module-level helpers."""
    out = ["# Restated from PyTorch's tests by scripts/peer_suite/measure.py; do not commit."]
    for node in tree.body:
        seg = lines[node.lineno - 1 : node.end_lineno]
        if isinstance(node, ast.Import):
            out += ["try:"] + ["    " + s for s in seg] + ["except Exception:", "    pass"]
        elif isinstance(node, ast.ImportFrom):
            names = ", ".join(a.asname or a.name for a in node.names)
            out += ["try:"] + ["    " + s for s in seg]
            out += ["except Exception:", f"    from _peer_harness import {names}"]
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not (
            isinstance(node, ast.ClassDef) and is_test_class(node)
        ):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            out += lines[start - 1 : node.end_lineno]
    out.append("from _peer_harness import self, records  # noqa: E402")
    return out


CONFIG_PATCH_RE = re.compile(r"(^|\.)config\.patch\(")


class TestMethod:
    def __init__(self, qualname: str, node: ast.FunctionDef, lines: list[str]):
        self.qualname = qualname
        self.node = node
        # `@torch._dynamo.config.patch(...)` on the test: the test runs under that config, so
        # the restated module enters it first (the worker restores the configs after each module)
        self.config_patches = [
            ast.unparse(d) for d in node.decorator_list if CONFIG_PATCH_RE.search(ast.unparse(d))
        ]
        first = node.body[0]
        # a decorated first statement starts at its decorator (`@torch.compile(...)`)
        decorators = getattr(first, "decorator_list", [])
        self.body_start = min([d.lineno for d in decorators] + [first.lineno])
        indent = node.body[0].col_offset
        pad = " " * indent
        self.body = [
            (ln[indent:] if ln.startswith(pad) else ln)
            for ln in lines[self.body_start - 1 : node.end_lineno]
        ]
        # every function defined inside the test, for mapping a line to (function, offset)
        self.functions = [
            n
            for n in ast.walk(node)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not node
        ]

    def locate(self, orig_line: int):
        """Innermost function inside the test containing orig_line -> (name, offset, length)."""
        best = None
        for f in self.functions:
            if f.lineno <= orig_line <= f.end_lineno:
                if best is None or f.lineno >= best.lineno:
                    best = f
        if best is None:
            return ("<test body>", orig_line - self.node.lineno, 0)
        return (best.name, orig_line - best.lineno, best.end_lineno - best.lineno + 1)


def collect_tests(path: Path, source: str = ""):
    text = path.read_text()
    lines = text.splitlines()
    tree = ast.parse(text)
    tests = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and is_test_class(node):
            for m in node.body:
                if isinstance(m, ast.FunctionDef) and m.name.startswith("test_"):
                    body = "\n".join(lines[m.lineno - 1 : m.end_lineno])
                    if source and not is_graph_break_test(source, body):
                        continue
                    tests[f"{node.name}.{m.name}"] = TestMethod(f"{node.name}.{m.name}", m, lines)
    return header_for(tree, lines), tests


def slug(source: str, qualname: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", Path(source).stem + "__" + qualname)


def restate(workdir: Path, sources, torch_tests: Path, wanted, all_tests: bool = False):
    """Write one module per test; returns {module path: (source, TestMethod, header_len)}.

    all_tests: every test of each file, not only the candidates (GRAPH_BREAK_MARKERS)."""
    workdir.mkdir(parents=True, exist_ok=True)
    for old in workdir.glob("*.py"):
        old.unlink()
    (workdir / "_peer_harness.py").write_text(HARNESS)
    modules = {}
    for source in sources:
        path = find_source(torch_tests, source, required=wanted is not None)
        if path is None:
            print(f"note: {source} not under {torch_tests}: skipped", file=sys.stderr)
            continue
        header, tests = collect_tests(path, "" if all_tests else source)
        for qualname, tm in tests.items():
            if wanted is not None and (source, qualname) not in wanted:
                continue
            mod = workdir / f"{slug(source, qualname)}.py"
            # Before the body, after the imports: the mapping to the source counts these lines as
            # header (header_len), so body lines keep their offsets.
            patches = [f"{patch}.__enter__()" for patch in tm.config_patches]
            mod.write_text("\n".join(header + patches + tm.body) + "\n")
            modules[str(mod)] = (source, tm, len(header) + len(patches))
    return modules


# ---- confirmation worker (runs under the torch being measured) ----

GB_RE = re.compile(r"gb/gb(\d{4})\.html")


def worker(workdir: Path, modules: list[str]) -> None:
    import logging
    import runpy

    import torch
    import torch._dynamo

    sys.path.insert(0, str(workdir))
    import _peer_harness

    current: list = []
    traced: set = set()

    class Grab(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            if msg.startswith("TRACE starts_line "):
                traced.add(msg.split(" ", 3)[2])
            elif "Graph break" in msg:
                current.append(("log", msg))

    grab = Grab()

    def listen():
        # trace_source: every line Dynamo traces (inlined callees too), "TRACE starts_line
        # FILE:LINE in ...": which functions of a module Dynamo compiled (held-out precision)
        torch._logging.set_logs(graph_breaks=True, trace_source=True)
        # torch's registered loggers stop propagation where they hold handlers: listen there
        # (each of them has propagate=False, so a record reaches exactly one Grab)
        for name, logger in list(logging.Logger.manager.loggerDict.items()):
            if name.startswith("torch") and isinstance(logger, logging.Logger) and logger.handlers:
                for h in logger.handlers:
                    if h is not grab:
                        h.setLevel(logging.CRITICAL)  # keep the worker's stderr quiet
                logger.addHandler(grab)

    result = {}
    # PEER_MODULE_TIMEOUT (seconds, set by the held-out run): a module still running then is
    # stopped and recorded as an error, so one slow test cannot stall the whole confirmation
    timeout = int(os.environ.get("PEER_MODULE_TIMEOUT", "0"))

    def on_alarm(signum, frame):
        raise TimeoutError(f"module ran over {timeout} s")

    if timeout:
        import signal

        signal.signal(signal.SIGALRM, on_alarm)
    # a module may patch a config (a test's `@config.patch` decorator, restated): restored after
    configs = []
    for name in ("torch._dynamo.config", "torch._inductor.config", "torch._functorch.config"):
        try:
            module = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - absent on this torch
            continue
        if hasattr(module, "save_config") and hasattr(module, "load_config"):
            configs.append(module)
    for mod in modules:
        torch._dynamo.reset()
        saved = [(config, config.save_config()) for config in configs]
        # a test may reconfigure torch's logs itself: ask for the two artifacts again
        listen()
        current.clear()
        traced.clear()
        _peer_harness.RAISED.clear()
        error = None
        try:
            if timeout:
                signal.alarm(timeout)
            runpy.run_path(mod, run_name="__peer__")
        except BaseException as exc:  # a test body that fails outside its asserts
            error = f"{type(exc).__name__}: {str(exc)[:200]}"
            _peer_harness.RAISED.append(exc)
        finally:
            if timeout:
                signal.alarm(0)
            for config, state in saved:
                config.load_config(state)
        reports = list(current)
        for exc in _peer_harness.RAISED:
            reports.append(("exc", f"{type(exc).__name__}: {exc}"))
        breaks = []
        pat = re.compile(r'File "' + re.escape(mod) + r'", line (\d+)')
        for kind, msg in reports:
            frames = pat.findall(msg)
            at = re.search(re.escape(mod) + r":(\d+)", msg)
            line = int(frames[-1]) if frames else (int(at.group(1)) if at else None)
            gb = GB_RE.search(msg)
            # torch before ~2.8 prints no GB link: the break still counts, its code comes from
            # cases.toml (which a recent torch wrote)
            if line is not None and (gb or "Graph break" in msg or "Unsupported" in msg):
                code = f"GB{gb.group(1)}" if gb else "GB????"
                # chain: every frame of this module in the user stack (call sites down to the break)
                chain = sorted({int(n) for n in frames} | {line})
                breaks.append({"line": line, "gb": code, "via": kind, "chain": chain})
        prefix = mod + ":"
        lines = sorted(int(t[len(prefix):]) for t in traced if t.startswith(prefix))
        result[mod] = {"breaks": breaks, "error": error, "traced": lines}
    json.dump({"torch": torch.__version__, "modules": result}, sys.stdout)


# ---- driver ----


def load_cases(path: Path):
    data = tomllib.loads(path.read_text())
    return data.get("case", []), data


def write_cases(path: Path, observed, torch_version: str, pinned: str | None):
    out = [
        "# Peer suite: PyTorch's own graph-break tests, as a list (never their code).",
        "# Re-derive and measure with scripts/peer_suite/measure.py --torch-tests DIR --binary BIN.",
        "# function: the function Dynamo reports the break in; break_offset: break line minus that",
        "# function's `def` line; function_lines: its span; gb: Dynamo's GB code on this torch.",
        f'torch = "{torch_version}"',
    ]
    # the test files may come from different commits (what the code index held for each)
    for source, commit in sorted(pinned.items()):
        out.append(f'pytorch_commit."{source}" = "{commit}"')
    out.append("")
    for o in observed:
        out += [
            "[[case]]",
            f'test = "{o["test"]}"',
            f'source = "{o["source"]}"',
            f'function = "{o["function"]}"',
            f"function_lines = {o['function_lines']}",
            f"break_offset = {o['break_offset']}",
            f'gb = "{o["gb"]}"',
            "",
        ]
    path.write_text("\n".join(out))


def main() -> int:
    # held-out measurement (scripts/peer_suite/heldout.py): `heldout`, `draw`, `assemble`
    if len(sys.argv) > 1 and sys.argv[1] in ("heldout", "draw", "assemble"):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import heldout

        return heldout.main(sys.argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch-tests", required=True, type=Path)
    ap.add_argument("--binary", type=Path, default=REPO / "target" / "release" / "graphbreak")
    ap.add_argument("--python", default=os.environ.get("GRAPHBREAK_PYTHON", sys.executable))
    ap.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    ap.add_argument("--write-cases", action="store_true", help="rewrite --cases from what breaks")
    ap.add_argument("--cases-out", type=Path, help="with --write-cases: write here, not over --cases")
    ap.add_argument("--sources", nargs="*", help="test files for --write-cases (default: %(default)s)")
    ap.add_argument(
        "--pytorch-commit", action="append", default=[], metavar="SOURCE=SHA",
        help="commit each test file was taken from, recorded in cases.toml with --write-cases",
    )
    ap.add_argument("--json", type=Path, help="also write the full result here")
    ap.add_argument("--worker", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()

    workdir = args.workdir.resolve()
    if args.worker is not None:
        worker(workdir, args.worker)
        return 0
    if not args.torch_tests.is_dir():
        sys.exit(f"error: --torch-tests {args.torch_tests} is not a directory")
    if not args.write_cases and not args.binary.is_file():
        sys.exit(f"error: --binary {args.binary} not found (cargo build --release)")

    cases = []
    if not args.write_cases:
        if not args.cases.is_file():
            sys.exit(f"error: {args.cases} missing (run with --write-cases first)")
        cases, _ = load_cases(args.cases)
        sources = sorted({c["source"] for c in cases})
        wanted = {(c["source"], c["test"]) for c in cases}
    else:
        sources, wanted = args.sources or DEFAULT_SOURCES, None
    modules = restate(workdir, sources, args.torch_tests, wanted)

    proc = subprocess.run(
        [args.python, __file__, "--torch-tests", str(args.torch_tests), "--workdir", str(workdir),
         "--worker", *modules],
        capture_output=True, text=True, cwd=workdir,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(workdir), os.environ.get("PYTHONPATH")]))},
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        sys.exit(f"error: confirmation worker failed under {args.python}")
    confirmed = json.loads(proc.stdout.strip().splitlines()[-1])
    torch_version = confirmed["torch"]

    # observed breaks, keyed the way cases.toml names them
    observed = {}
    for mod, res in confirmed["modules"].items():
        source, tm, header_len = modules[mod]
        for b in res["breaks"]:
            orig = b["line"] - header_len - 1 + tm.body_start
            if not tm.body_start <= orig <= tm.node.end_lineno:
                continue  # a frame outside the restated test (header helper)
            fn, off, span = tm.locate(orig)
            key = (source, tm.qualname, fn, off)
            observed.setdefault(key, {
                "source": source, "test": tm.qualname, "function": fn, "break_offset": off,
                "function_lines": span, "gb": b["gb"], "module": mod, "module_line": b["line"],
                "orig_line": orig,
            })
    if args.write_cases:
        obs = sorted(observed.values(), key=lambda o: (o["source"], o["orig_line"]))
        pinned = {}
        for item in args.pytorch_commit:
            source, sep, commit = item.partition("=")
            if not sep or not commit:
                sys.exit(f"error: --pytorch-commit {item!r}: expected SOURCE=SHA")
            pinned[source] = commit
        out = args.cases_out or args.cases
        write_cases(out, obs, torch_version, pinned)
        print(f"wrote {len(obs)} cases to {out} (torch {torch_version})")
        return 0

    expected = {(c["source"], c["test"], c["function"], c["break_offset"]): c for c in cases}
    live = [observed[k] | {"gb": expected[k]["gb"]} for k in expected if k in observed]
    dropped = [c for k, c in expected.items() if k not in observed]
    extra = [o for k, o in observed.items() if k not in expected]

    scan = subprocess.run(
        [str(args.binary), "scan", "--output-format", "json", str(workdir)],
        capture_output=True, text=True,
    )
    if scan.returncode not in (0, 1):
        sys.stderr.write(scan.stderr)
        sys.exit(f"error: graphbreak scan exited {scan.returncode}")
    findings = defaultdict(list)
    for f in json.loads(scan.stdout or "[]"):
        findings[(str(Path(f["filename"]).resolve()), f["location"]["row"])].append(f["code"])

    flagged, unflagged = [], []
    for o in live:
        codes = findings.get((str(Path(o["module"]).resolve()), o["module_line"]), [])
        (flagged if codes else unflagged).append(o | {"codes": sorted(set(codes))})
    per_gb = defaultdict(lambda: [0, 0])
    for o in flagged:
        per_gb[o["gb"]][0] += 1
    for o in unflagged:
        per_gb[o["gb"]][1] += 1

    total = len(live)
    pct = 100.0 * len(flagged) / total if total else 0.0
    print(f"torch {torch_version}; graphbreak {args.binary}")
    print(f"cases listed {len(cases)}; breaking on this torch {total}; dropped {len(dropped)}")
    print(f"flagged {len(flagged)} / {total} breaking lines ({pct:.0f}%)")
    per_source = defaultdict(lambda: [0, 0])
    for o in flagged:
        per_source[o["source"]][0] += 1
    for o in unflagged:
        per_source[o["source"]][1] += 1
    for source, (f_, u) in sorted(per_source.items()):
        print(f"  {source}: {f_} / {f_ + u} ({100.0 * f_ / (f_ + u):.0f}%)")
    print("\nper GB code (flagged / total):")
    for gb, (f_, u) in sorted(per_gb.items()):
        print(f"  {gb}: {f_}/{f_ + u}")
    print("\nunflagged:")
    for o in sorted(unflagged, key=lambda o: (o["gb"], o["test"])):
        print(f"  {o['gb']}  {o['test']}  {o['function']}+{o['break_offset']}"
              f"  (line {o['orig_line']})")
    if dropped:
        print("\ndropped (listed, but no break at that line on this torch):")
        for c in dropped:
            print(f"  {c['gb']}  {c['test']}  {c['function']}+{c['break_offset']}")
    if extra:
        print("\nbreaking but not listed (not counted):")
        for o in extra:
            print(f"  {o['gb']}  {o['test']}  {o['function']}+{o['break_offset']}")
    if args.json:
        args.json.write_text(json.dumps({
            "torch": torch_version, "flagged": len(flagged), "total": total,
            "per_gb": per_gb, "per_source": per_source, "flagged_cases": flagged, "unflagged": unflagged,
            "dropped": dropped, "extra": extra,
        }, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
