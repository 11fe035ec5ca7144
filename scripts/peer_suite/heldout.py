"""Held-out measure: PyTorch test/dynamo files nobody tuning scan has read, drawn and measured.

Run through measure.py (`measure.py draw|assemble|heldout ...`); the restating, the confirmation
under real Dynamo and the scan are measure.py's, unchanged. What this adds:

- the pool manifest (scripts/peer_suite/heldout_pool.toml) and its seeded draw
  (`random.Random(seed).sample(sorted(unspent), k)`; a seed of digits is an int, anything else a str);
- `assemble`: join the pages a `read_file` session saved (each page the JSON string of its `text`)
  into the checkout and check the length against the manifest (FETCH_PROMPT.md);
- `heldout`: candidates of every drawn file (tests naming a GRAPH_BREAK_MARKERS word), one
  confirmation run (truth: where Dynamo breaks, which lines it traces), then per binary:
  * recall: breaking lines (innermost user frame Dynamo reports, inside the test body) with a
    finding starting on that line;
  * strict precision: lines holding a break-claiming finding (rule family `break`, or a message that
    says "graph break": SY002's value reads) inside a function Dynamo traced (a `TRACE starts_line`
    record falls in it), and the share of those on a line where Dynamo broke. `chain` also counts a
    line of the break's user stack (the call site of the callee that broke).
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import hashlib
import json
import os
import random
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

import measure

REPO = measure.REPO
DEFAULT_MANIFEST = REPO / "scripts" / "peer_suite" / "heldout_pool.toml"
DEFAULT_ROOT = REPO / "bench" / ".work" / "heldout" / "pytorch"
DEFAULT_WORKDIR = REPO / "bench" / ".work" / "heldout" / "modules"


# ---- manifest and draw ----


def load_manifest(path: Path, include_spent: bool = False, max_chars: int | None = None) -> dict:
    data = tomllib.loads(path.read_text())
    files = {f["path"]: f for f in data["file"]}
    spent = set() if include_spent else set(data.get("spent", []))
    patterns = data["exclude_name_patterns"]
    max_chars = data["max_chars"] if max_chars is None else max_chars
    unspent = []
    for p, f in sorted(files.items()):
        name = Path(p).name
        if p in spent or any(fnmatch.fnmatch(name, pat) for pat in patterns):
            continue
        if f["chars"] > max_chars:
            continue
        unspent.append(p)
    return {"files": files, "spent": spent, "unspent": unspent, "data": data}


def parse_seed(text: str):
    return int(text) if text.isdigit() else text


def draw(manifest: dict, seed, k: int) -> list[str]:
    return random.Random(seed).sample(sorted(manifest["unspent"]), k)


def cmd_draw(args) -> int:
    m = load_manifest(args.manifest, include_spent=args.include_spent, max_chars=args.max_chars)
    seed = parse_seed(args.seed)
    if args.k > len(m["unspent"]):
        # The pool runs out: say so, not a traceback (extend heldout_pool.toml with new files).
        print(
            f"error: {args.k} files asked, {len(m['unspent'])} unspent left in {args.manifest}",
            file=sys.stderr,
        )
        return 2
    picked = draw(m, seed, args.k)
    print(f"# random.Random({seed!r}).sample(sorted(unspent), {args.k}); unspent = {len(m['unspent'])}")
    for p in picked:
        f = m["files"][p]
        print(f"{p}\t{f['commit']}\t{f['chars']}")
    return 0


# ---- assemble fetched pages ----


def cmd_assemble(args) -> int:
    m = load_manifest(args.manifest)
    entry = m["files"].get(args.path)
    if entry is None:
        sys.exit(f"error: {args.path} is not in {args.manifest}")
    text = "".join(json.loads(Path(p).read_text()) for p in args.pages)
    if len(text) != entry["chars"]:
        sys.exit(f"error: {args.path}: {len(text)} chars assembled, the manifest says {entry['chars']}"
                 f" (commit {entry['commit']}); a page is missing or was altered")
    out = args.root / args.path
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    digest = hashlib.sha256(text.encode()).hexdigest()
    print(f"{args.path}\t{entry['commit']}\t{len(text)} chars\tsha256 {digest}\t-> {out}")
    return 0


# ---- the measurement ----


def function_spans(module_text: str):
    """(start, end) of every def in the module, for the innermost function holding a line."""
    spans = []
    for n in ast.walk(ast.parse(module_text)):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            start = min([d.lineno for d in getattr(n, "decorator_list", [])] + [n.lineno])
            spans.append((start, n.end_lineno))
    return spans


def innermost(spans, line: int):
    best = None
    for s, e in spans:
        if s <= line <= e and (best is None or s >= best[0]):
            best = (s, e)
    return best


def rule_families(binary: Path) -> dict[str, str]:
    out = subprocess.run([str(binary), "rules"], capture_output=True, text=True, check=True).stdout
    fams = {}
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 3:
            fams[parts[0]] = parts[2]
    return fams


def claims_break(finding: dict, families: dict[str, str]) -> bool:
    # "(no graph break: ...)" says the opposite: SY002's wording where the read is captured
    message = finding["message"].lower().replace("no graph break", "")
    return families.get(finding["code"]) == "break" or "graph break" in message


def scan(binary: Path, workdir: Path):
    proc = subprocess.run([str(binary), "scan", "--output-format", "json", str(workdir)],
                          capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr[-4000:])
        sys.exit(f"error: {binary} scan exited {proc.returncode}")
    return json.loads(proc.stdout or "[]")


def cmd_heldout(args) -> int:
    m = load_manifest(args.manifest, include_spent=args.include_spent)
    if args.sources:
        sources = args.sources
    elif args.seed is not None:
        sources = draw(m, parse_seed(args.seed), args.k)
    else:
        sys.exit("error: give --seed (and --k) to measure the manifest's draw, or --sources")
    binaries = []
    for item in args.binary:
        name, sep, path = item.partition("=")
        path = Path(path if sep else name)
        if not path.is_file():
            sys.exit(f"error: --binary {item}: {path} not found")
        binaries.append((name if sep else path.name, path))
    if not binaries:
        sys.exit("error: give at least one --binary NAME=PATH")
    # every drawn file must be the manifest's text (length), or the figure is of another file
    for s in sources:
        path = args.torch_tests / s
        if not path.is_file():
            sys.exit(f"error: {path} missing: fetch it first (scripts/peer_suite/FETCH_PROMPT.md)")
        entry = m["files"].get(s)
        if entry is not None and len(path.read_text()) != entry["chars"]:
            sys.exit(f"error: {path}: {len(path.read_text())} chars, manifest says {entry['chars']}")

    # a file this Python cannot parse (newer syntax) drops out whole, and is reported
    lost = {}  # source -> why the whole file gave no measurement
    for s in sources:
        try:
            ast.parse((args.torch_tests / s).read_text())
        except SyntaxError as exc:
            lost[s] = f"SyntaxError under this Python: {exc}"
    workdir = args.workdir.resolve()
    modules = measure.restate(workdir, [s for s in sources if s not in lost],
                              args.torch_tests.resolve(), None, all_tests=args.all_tests)
    per_source_candidates = defaultdict(int)
    for mod, (source, _tm, _h) in modules.items():
        per_source_candidates[source] += 1
    # one worker per file: a crash (segfault, abort) in one file's tests loses that file only
    confirmed = {"torch": None, "modules": {}}
    for s in sources:
        mods = [mod for mod, (source, _tm, _h) in modules.items() if source == s]
        if s in lost or not mods:
            continue
        proc = subprocess.run(
            [args.python, str(Path(measure.__file__).resolve()), "--torch-tests",
             str(args.torch_tests), "--workdir", str(workdir), "--worker", *mods],
            capture_output=True, text=True, cwd=workdir,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(workdir), os.environ.get("PYTHONPATH")])),
                 "PEER_MODULE_TIMEOUT": str(args.module_timeout)},
        )
        if proc.returncode != 0 or not proc.stdout.strip():
            sys.stderr.write(proc.stderr[-2000:])
            lost[s] = f"confirmation worker exited {proc.returncode} under {args.python}"
            for mod in mods:
                del modules[mod]
            continue
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        confirmed["torch"] = out["torch"]
        confirmed["modules"].update(out["modules"])
    torch_version = confirmed["torch"]

    # truth per module: break lines (innermost, in the test body), their chains, traced functions
    cases = []
    module_truth = {}
    dropped = defaultdict(list)  # source -> [(test, why)]
    for mod, res in confirmed["modules"].items():
        source, tm, header_len = modules[mod]
        text = Path(mod).read_text()
        spans = function_spans(text)
        traced_fns = {innermost(spans, ln) for ln in res["traced"] if ln > header_len}
        traced_fns.discard(None)
        body_breaks = {}
        chain_lines = set()
        for b in res["breaks"]:
            if b["line"] <= header_len:
                continue  # in a header helper: shared by every module of the file
            orig = b["line"] - header_len - 1 + tm.body_start
            fn, off, span = tm.locate(orig)
            body_breaks.setdefault(b["line"], {
                "source": source, "test": tm.qualname, "function": fn, "break_offset": off,
                "function_lines": span, "gb": b["gb"], "module": mod, "module_line": b["line"],
                "orig_line": orig, "text": text.splitlines()[b["line"] - 1].strip(),
            })
            chain_lines.update(ln for ln in b.get("chain", [b["line"]]) if ln > header_len)
        cases += body_breaks.values()
        module_truth[mod] = {"header_len": header_len, "spans": spans, "traced_fns": traced_fns,
                             "traced": set(res["traced"]),
                             "breaks": set(body_breaks), "chain": chain_lines, "text": text}
        if not body_breaks:
            why = res["error"] or ("compiled nothing" if not traced_fns else "no break")
            dropped[source].append((tm.qualname, why))

    results = {}
    for name, binary in binaries:
        families = rule_families(binary)
        findings = scan(binary, workdir)
        claimed = defaultdict(set)  # (module, row) -> codes
        untraced = set()  # claimed lines outside any function Dynamo traced: not judged
        # claimed lines in a traced function that Dynamo never reached (a fullgraph compile stopped
        # at an earlier break, a branch not taken, a skipped frame): nothing says they would break
        unreached = {}
        for f in findings:
            mod = str(Path(f["filename"]).resolve())
            if mod not in module_truth or not claims_break(f, families):
                continue
            truth = module_truth[mod]
            row = f["location"]["row"]
            if row <= truth["header_len"]:
                continue
            fn = innermost(truth["spans"], row)
            # reached: a line Dynamo traced, or one it broke on / called through (it got there)
            if row in truth["traced"] or row in truth["breaks"] or row in truth["chain"]:
                claimed[(mod, row)].add(f["code"])
            elif fn is not None and fn in truth["traced_fns"]:
                unreached.setdefault((mod, row), set()).add(f["code"])
            else:
                untraced.add((mod, row))
        flagged_rows = defaultdict(set)
        for f in findings:
            flagged_rows[(str(Path(f["filename"]).resolve()), f["location"]["row"])].add(f["code"])
        hits = [c | {"codes": sorted(flagged_rows[(c["module"], c["module_line"])])}
                for c in cases if flagged_rows.get((c["module"], c["module_line"]))]
        misses = [c for c in cases if not flagged_rows.get((c["module"], c["module_line"]))]
        on_break = {k: v for k, v in claimed.items() if k[1] in module_truth[k[0]]["breaks"]}
        on_chain = {k: v for k, v in claimed.items() if k[1] in module_truth[k[0]]["chain"]}
        false_pos = [
            {"module": k[0], "row": k[1], "codes": sorted(v),
             "text": module_truth[k[0]]["text"].splitlines()[k[1] - 1].strip(),
             "source": modules[k[0]][0], "test": modules[k[0]][1].qualname}
            for k, v in sorted(claimed.items()) if k not in on_chain
        ]
        results[name] = {"binary": str(binary), "hits": hits, "misses": misses,
                         "claimed": len(claimed), "on_break": len(on_break),
                         "untraced": len(untraced), "findings": len(findings),
                         "unreached": [
                             {"row": k[1], "codes": sorted(v), "test": modules[k[0]][1].qualname,
                              "text": module_truth[k[0]]["text"].splitlines()[k[1] - 1].strip()}
                             for k, v in sorted(unreached.items())],
                         "on_chain": len(on_chain), "false_positives": false_pos}

    def pct(a, b):
        return f"{100.0 * a / b:.0f}%" if b else "-"

    print(f"torch {torch_version}; sources: {', '.join(sources)}")
    for s in sources:
        if s in lost:
            print(f"  {s}: LOST, {lost[s]}")
            continue
        n = per_source_candidates[s]
        d = dropped.get(s, [])
        print(f"  {s}: {n} candidate tests, {n - len(d)} with a break in the test body, "
              f"{len(d)} without (error / compiled nothing / no break: "
              f"{sum(1 for _, w in d if w not in ('compiled nothing', 'no break'))} / "
              f"{sum(1 for _, w in d if w == 'compiled nothing')} / "
              f"{sum(1 for _, w in d if w == 'no break')})")
    print(f"breaking lines: {len(cases)}\n")
    print("| binary | recall (break lines flagged) | strict precision (claimed lines Dynamo traced "
          "that broke) | on the break's call chain | claimed, in a traced function, line never "
          "reached (not judged) | claimed in untraced code (not judged) | findings |")
    print("|---|---|---|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {len(r['hits'])}/{len(cases)} ({pct(len(r['hits']), len(cases))}) | "
              f"{r['on_break']}/{r['claimed']} ({pct(r['on_break'], r['claimed'])}) | "
              f"{r['on_chain']}/{r['claimed']} ({pct(r['on_chain'], r['claimed'])}) | "
              f"{len(r['unreached'])} | {r['untraced']} | {r['findings']} |")
    for name, r in results.items():
        print(f"\n## {name}: missed breaking lines ({len(r['misses'])})")
        for c in sorted(r["misses"], key=lambda c: (c["gb"], c["source"], c["orig_line"])):
            print(f"  {c['gb']}  {Path(c['source']).name}:{c['orig_line']}  {c['test']}  "
                  f"{c['function']}+{c['break_offset']}  `{c['text']}`")
        print(f"\n## {name}: claimed breaks in traced functions off every break chain "
              f"({len(r['false_positives'])})")
        for fp in r["false_positives"]:
            print(f"  {','.join(fp['codes'])}  {fp['test']}  line {fp['row']}  `{fp['text']}`")
        print(f"\n## {name}: claims on lines of traced functions Dynamo never reached "
              f"({len(r['unreached'])}, not judged)")
        for u in r["unreached"]:
            print(f"  {','.join(u['codes'])}  {u['test']}  line {u['row']}  `{u['text']}`")
    print("\n## tests without a confirmed break (not in recall; their traced lines count for precision)")
    for s in sources:
        for test, why in dropped.get(s, []):
            print(f"  {Path(s).name}  {test}: {why}")

    for out in (args.cases_out, args.json):
        if out:
            out.parent.mkdir(parents=True, exist_ok=True)
    if args.cases_out:
        pinned = {s: m["files"][s]["commit"] for s in sources if s in m["files"]}
        measure.write_cases(args.cases_out, sorted(cases, key=lambda o: (o["source"], o["orig_line"])),
                            torch_version, pinned)
        print(f"\nwrote {len(cases)} cases to {args.cases_out}")
    if args.json:
        args.json.write_text(json.dumps({
            "torch": torch_version, "sources": sources, "cases": cases, "lost": lost,
            "modules": {mod: {"test": modules[mod][1].qualname, "source": modules[mod][0],
                              "traced_lines": len(t["traced"]), "traced_functions": len(t["traced_fns"]),
                              "break_lines": sorted(t["breaks"])}
                        for mod, t in module_truth.items()},
            "dropped": {s: d for s, d in dropped.items()}, "results": results,
        }, indent=1, default=str))
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="measure.py", description="held-out PyTorch test files")
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw", help="print the seeded draw from the unspent pool")
    d.add_argument("--seed", required=True, help="digits: an int seed; anything else: a str seed")
    d.add_argument("--k", type=int, required=True)
    d.add_argument("--include-spent", action="store_true",
                   help="draw as if nothing were spent (reproduces the dev draw)")
    d.add_argument("--max-chars", type=int,
                   help="the size limit a past draw was made under (the manifest's was 150000 "
                        "until 2026-12-04): reproduces that draw's population")
    a = sub.add_parser("assemble", help="join fetched JSON-string pages into the checkout")
    a.add_argument("--path", required=True, help="e.g. test/dynamo/test_x.py (as in the manifest)")
    a.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    a.add_argument("pages", nargs="+", help="page files in offset order, each a JSON string")
    h = sub.add_parser("heldout", help="confirm under Dynamo, scan with each binary, one table")
    h.add_argument("--torch-tests", type=Path, default=DEFAULT_ROOT)
    h.add_argument("--seed", help="measure the manifest's draw with this seed (with --k)")
    h.add_argument("--k", type=int, default=4)
    h.add_argument("--include-spent", action="store_true",
                   help="draw as if nothing were spent (re-measures the dev draw)")
    h.add_argument("--sources", nargs="*", help="test files instead of a draw (root-relative)")
    h.add_argument("--binary", action="append", default=[], metavar="NAME=PATH")
    h.add_argument("--python", default=os.environ.get("GRAPHBREAK_PYTHON", sys.executable))
    h.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    h.add_argument("--module-timeout", type=int, default=180,
                   help="seconds one restated test may run before it counts as an error")
    h.add_argument("--cases-out", type=Path, help="write the confirmed cases (TOML) here")
    h.add_argument("--all-tests", action="store_true",
                   help="every test of the files, not only those naming a graph-break word: "
                        "more clean compiles in the precision denominator (slower)")
    h.add_argument("--json", type=Path, help="write every number and list here")
    for p in (d, a, h):
        p.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    args = ap.parse_args(argv)
    return {"draw": cmd_draw, "assemble": cmd_assemble, "heldout": cmd_heldout}[args.cmd](args)
