#!/usr/bin/env python3
"""Measure `graphbreak scan` against the recorded runtime truth of a fresh draw (issue 15 "Measure").

Input: a draw directory (e.g. scripts/realworld/fresh/2026-12-01) with
  libs.toml                 the drawn libraries, versions, import package, case file and compile roots;
  results/<key>.jsonl       `graphbreak check` results of that library's cases (key = case file stem
                            without `cases_`), each with `runtime_events` (breaks at file:line, GB code)
                            and `traced` (the lines Dynamo traced, per absolute file name).
and the venv the cases ran in (its site-packages hold the exact library files that ran).

It computes, per library and overall:
  (a) runtime recall: distinct break lines in the library's own files (runtime events of kind `break`)
      that `graphbreak scan` flags, with the roots of libs.toml and without roots. A break line is flagged
      when a finding's span touches the statement the line belongs to (compound statements by their
      header), the way check's cross-check attributes events to findings.
  (b) reachability agreement: Dynamo-traced functions (functions of the library's files holding a traced
      line, innermost `def`; a header line counts for the function it heads, and a function none of whose
      body lines was traced is not traced: its `def` ran in the enclosing frame) vs the functions `graphbreak scan --show-reached --output-format json` reaches
      from the same roots: the share of traced functions reached, and the share of reached functions
      traced in some case.
  (c) a seeded sample of the findings with roots (equal shares per library, the key scheme of
      scripts/realworld/scan_libs.py: sha256(seed | library | file | code | source line | n-th)), as a TSV
      to judge.

The option tier (a finding whose JSON `gated_by` is non-empty: reached only when a constructor option that
nothing in the scanned files sets differs from its default) is kept apart: the precision sample (c) is
drawn from the normal tier only; the option tier is counted and sampled separately (--option-total, into
OUT/sample-option-tier.tsv); recall (a) is reported two ways, flagged in the normal tier (`recall_*`, the
headline) and flagged in any tier (`recall_*_any_tier`). A binary without the tier (no `gated_by`) puts
every finding in the normal tier, so older builds measure as before.

Usage:
  measure.py truth   DRAW_DIR [--venv V]                      # parse recorded results only (no scan)
  measure.py measure DRAW_DIR --binary BIN [--venv V] [--total 80] [--option-total 20] [--seed S] [--out DIR]

`truth` is the dry run: it reads the recorded results and writes DRAW_DIR/truth.json (break lines and
traced functions per library). `measure` re-derives the truth into OUT/truth.json (never into DRAW_DIR), copies each library's installed files into a scan tree
(OUT/trees/<name>-<version>, its own git root so qualified names start at the package), runs the scans,
and writes OUT/measure.json, OUT/measure.md and OUT/sample.tsv. It fails clearly when the binary has no
`--show-reached`.
"""

from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

# The sample's quotas are scan_libs.py's (one scheme for every judged sample).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scan_libs import quotas  # noqa: E402

DEFAULT_VENV = Path("/work/venvs/eval")
DEFAULT_SEED = "graphbreak-fresh-2026-12-01"
TSV_FIELDS = ["library", "version", "file", "line", "col", "rule", "source", "message", "verdict", "reason"]


def log(msg: str) -> None:
    print(f"[measure] {msg}", file=sys.stderr)


def die(msg: str) -> None:
    sys.exit(f"measure.py: {msg}")


# ---------------------------------------------------------------- draw, libraries, installed files


def load_draw(draw: Path) -> dict:
    path = draw / "libs.toml"
    if not path.exists():
        die(f"{path} is missing")
    doc = tomllib.loads(path.read_text())
    for lib in doc["lib"]:
        lib["key"] = Path(lib["cases"]).stem.removeprefix("cases_")
    return doc


def site_packages(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python3*/site-packages"))
    if not found:
        die(f"no site-packages under {venv}")
    return found[0]


def dist_info(site: Path, lib: dict) -> Path | None:
    stem = re.sub(r"[-_.]+", "_", lib["name"]).lower()
    for d in site.glob("*.dist-info"):
        name, _, rest = d.name.partition("-")
        if re.sub(r"[-_.]+", "_", name).lower() == stem and rest.startswith(lib["version"]):
            return d
    return None


def torch_floor(meta: Path | None) -> str:
    """The floor the library declares for torch itself (no extras, no platform markers), as X.Y; else latest."""
    if meta is None or not (meta / "METADATA").exists():
        return "latest"
    for line in (meta / "METADATA").read_text(errors="replace").splitlines():
        # `torch` itself: not `torchvision>=0.5` (which once read as a torch floor of 0.5)
        m = re.match(r"Requires-Dist:\s*torch(?![\w.-])\s*\(?\s*([^;)]*)\)?\s*(;.*)?$", line)
        if not m:
            continue
        marker = m.group(2) or ""
        if "extra ==" in marker or "sys_platform" in marker or "platform_" in marker:
            continue
        spec = re.search(r"(>=|==|~=)\s*(\d+)\.(\d+)", m.group(1))
        if spec:
            return f"{spec.group(2)}.{spec.group(3)}"
    return "latest"


def rel_to_site(filename: str, site: Path, package: str) -> str | None:
    """`package/...py` for a file of the library's installed package, else None."""
    try:
        rel = Path(filename).resolve().relative_to(site.resolve())
    except ValueError:
        return None
    return str(rel) if rel.parts and rel.parts[0] == package else None


# ---------------------------------------------------------------- source structure (ast)


class SourceMap:
    """Per file: innermost function around a line, and the statement span a line belongs to."""

    def __init__(self, root: Path):
        self.root = root
        self._cache: dict[str, tuple[list, list, list[str]]] = {}
        self._inline: set[tuple[str, int]] = set()

    def _load(self, rel: str):
        if rel not in self._cache:
            try:
                text = (self.root / rel).read_text(errors="replace")
                tree = ast.parse(text)
            except (OSError, SyntaxError):
                self._cache[rel] = ([], [], [])
                return self._cache[rel]
            funcs, stmts = [], []

            def walk(node, prefix):
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        qual = f"{prefix}{child.name}"
                        first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                        funcs.append((first, child.lineno, child.end_lineno, qual))
                        if child.body[0].lineno == child.lineno:
                            self._inline.add((rel, child.lineno))  # `def f(x): return x`
                        walk(child, qual + ".<locals>.")
                    elif isinstance(child, ast.ClassDef):
                        walk(child, f"{prefix}{child.name}.")
                    else:
                        walk(child, prefix)

            walk(tree, "")
            for node in ast.walk(tree):
                if not isinstance(node, ast.stmt):
                    continue
                body = getattr(node, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                    # compound statement: its header only (a decorated def's decorators included)
                    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
                    stmts.append((start, max(start, body[0].lineno - 1)))
                else:
                    stmts.append((node.lineno, node.end_lineno))
            self._cache[rel] = (funcs, stmts, text.splitlines())
        return self._cache[rel]

    def function_at(self, rel: str, line: int):
        """(def line, qualname) of the innermost function whose body holds `line` (decorators excluded)."""
        funcs, _, _ = self._load(rel)
        best = None
        for first, def_line, end, qual in funcs:
            if def_line <= line <= end and (best is None or def_line >= best[0]):
                best = (def_line, qual)
        return best

    def body_on_def_line(self, rel: str, def_line: int) -> bool:
        self._load(rel)
        return (rel, def_line) in self._inline

    def function_by_header(self, rel: str, line: int):
        """The function whose header (first decorator .. def line) holds `line`, else the innermost around it."""
        funcs, _, _ = self._load(rel)
        for first, def_line, _end, qual in funcs:
            if first <= line <= def_line:
                return (def_line, qual)
        return self.function_at(rel, line)

    def statement_span(self, rel: str, line: int) -> tuple[int, int]:
        """The innermost statement (compound: header) holding `line`; the line itself when none."""
        _, stmts, _ = self._load(rel)
        best = None
        for start, end in stmts:
            if start <= line <= end and (best is None or end - start < best[1] - best[0]):
                best = (start, end)
        return best or (line, line)

    def source_line(self, rel: str, line: int) -> str:
        _, _, lines = self._load(rel)
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""


# ---------------------------------------------------------------- runtime truth from recorded results


def read_results(draw: Path, lib: dict, strict: bool) -> list[dict]:
    # results/<key>.jsonl, plus results/<key>-<part>.jsonl when a library's cases ran in several parts
    if lib.get("runtime_truth") is False:
        # a drawn library that could not be made to run (libs.toml says why): no break lines, no traced
        # functions; it is still scanned, so its findings still enter the judged sample
        log(f"{lib['name']}: no runtime truth (libs.toml runtime_truth = false)")
        return []
    paths = sorted((draw / "results").glob(f"{lib['key']}.jsonl")) + sorted((draw / "results").glob(f"{lib['key']}-*.jsonl"))
    if not paths:
        path = draw / "results" / f"{lib['key']}.jsonl"
        if strict:
            die(f"{path} is missing: run {draw}/run.sh {lib['key']} first")
        log(f"{path} is missing (dry run: counted as no results)")
        return []
    rows = []
    for path in paths:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                die(f"{path}:{n}: not JSON ({e})")
    return rows


def case_id(result: dict) -> str:
    case = result.get("case")
    if isinstance(case, dict):
        return case.get("node_id") or json.dumps(case, sort_keys=True)
    return str(case)


def runtime_truth(draw: Path, lib: dict, site: Path, src: SourceMap, strict: bool) -> dict:
    results = read_results(draw, lib, strict)
    breaks: dict[tuple[str, int], dict] = {}
    crashes: dict[tuple[str, int], dict] = {}
    recompiles: dict[tuple[str, int], dict] = {}
    traced_funcs: dict[tuple[str, int], dict] = {}
    statuses: dict[str, int] = defaultdict(int)
    cases = []
    no_trace = 0
    for r in results:
        cid = case_id(r)
        cases.append({"case": cid, "status": r.get("status"), "graph_break_count": r.get("graph_break_count")})
        statuses[str(r.get("status"))] += 1
        for ev in r.get("runtime_events") or []:
            rel = rel_to_site(ev.get("filename") or "", site, lib["package"])
            table = {"break": breaks, "crash": crashes, "recompile": recompiles}.get(ev.get("kind"))
            if rel is None or table is None:
                continue
            entry = table.setdefault((rel, ev["line"]), {"file": rel, "line": ev["line"], "gb_codes": set(), "cases": set()})
            if ev.get("gb_code"):
                entry["gb_codes"].add(ev["gb_code"])
            entry["cases"].add(cid)
        traced = r.get("traced")
        if traced is None:
            no_trace += 1
            continue
        for filename, lines in traced.items():
            rel = rel_to_site(filename, site, lib["package"])
            if rel is None:
                continue
            # A line of a function's header (first decorator .. `def`) is ambiguous: the function's own frame
            # starting (its first instruction carries co_firstlineno, the first decorator's line) or the
            # enclosing frame running the `def` statement (decorators applied, the function object made). The
            # function was traced only when some line of its body was; a header-only function's `def` ran in
            # the frame around it (a nested `@torch.compiler.disable def f` called from a traced forward).
            body_traced = set()
            for line in lines:
                fn = src.function_at(rel, line)
                if fn is not None and (line > fn[0] or src.body_on_def_line(rel, fn[0])):
                    body_traced.add(fn[0])
            for line in lines:
                fn = src.function_by_header(rel, line)
                if fn is None:
                    continue  # a module-level line (an import run while tracing): no function
                if fn[0] not in body_traced:
                    continue  # only its header ran: the `def` statement in the enclosing frame
                entry = traced_funcs.setdefault((rel, fn[0]), {"file": rel, "line": fn[0], "function": fn[1], "cases": set()})
                entry["cases"].add(cid)

    def plain(table):
        out = []
        for key in sorted(table):
            e = dict(table[key])
            for k in ("gb_codes", "cases"):
                if k in e:
                    e[k] = sorted(e[k])
            e["source"] = src.source_line(e["file"], e["line"])
            out.append(e)
        return out

    return {
        "cases": cases,
        "statuses": dict(statuses),
        "results_without_trace_map": no_trace,
        "break_lines": plain(breaks),
        "crash_lines": plain(crashes),
        "recompile_lines": plain(recompiles),
        "traced_functions": plain(traced_funcs),
    }


# ---------------------------------------------------------------- scan tree and scans


def make_tree(lib: dict, site: Path, trees: Path) -> Path:
    """A copy of the installed package (+ its dist-info for the torch floor) as its own git root."""
    dest = trees / f"{lib['name']}-{lib['version']}"
    if (dest / ".ready").exists():
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    shutil.copytree(site / lib["package"], dest / lib["package"], ignore=shutil.ignore_patterns("__pycache__"))
    meta = dist_info(site, lib)
    if meta is not None:
        shutil.copytree(meta, dest / meta.name)
    subprocess.run(["git", "init", "--quiet", str(dest)], check=True)
    (dest / ".ready").touch()
    return dest


def require_show_reached(binary: Path) -> None:
    help_text = subprocess.run([str(binary), "scan", "--help"], capture_output=True, text=True).stdout
    if "--show-reached" not in help_text:
        die(
            f"{binary} has no `scan --show-reached` (reachability agreement needs it: a JSON array of "
            '{"filename","line","end_line","function","root","reached_from"}); build a binary that has it'
        )


def usable_roots(binary: Path, tree: Path, floor: str, roots: list[str]) -> tuple[list[str], list[dict]]:
    """The roots as decided, less any pattern the scanner refuses because it matches nothing (exit 2,
    "root pattern `P` matches no ..."): a user would have to drop it too. Each dropped pattern is
    recorded with the scanner's message, so the figure says what the decided roots could not do."""
    roots, dropped = list(roots), []
    while True:
        cmd = [str(binary), "scan", ".", "--output-format", "json", "--exit-zero", "--torch-version", floor]
        for pattern in roots:
            cmd += ["--roots", pattern]
        proc = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
        m = re.search(r"root pattern `([^`]+)` matches no", proc.stderr)
        if proc.returncode != 2 or not m or m.group(1) not in roots:
            return roots, dropped
        roots.remove(m.group(1))
        dropped.append({"pattern": m.group(1), "message": proc.stderr.strip()[-500:]})
        log(f"root pattern {m.group(1)} matches nothing here: measured without it")


def run_scan(binary: Path, tree: Path, floor: str, roots: list[str], extra: list[str]) -> list | dict:
    cmd = [str(binary), "scan", ".", "--output-format", "json", "--exit-zero", "--torch-version", floor, *extra]
    for pattern in roots:
        cmd += ["--roots", pattern]
    proc = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
    if proc.returncode != 0:
        die(f"`{' '.join(cmd)}` in {tree} exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        die(f"`{' '.join(cmd)}` printed no JSON ({e}): {proc.stdout[:500]}")


def norm_rel(filename: str, tree: Path) -> str:
    p = Path(filename)
    if p.is_absolute():
        try:
            return str(p.resolve().relative_to(tree.resolve()))
        except ValueError:
            return filename
    return str(Path(filename))


def is_option_gated(finding: dict) -> bool:
    """In the option tier: reached only with a constructor option off its default."""
    return bool(finding.get("gated_by"))


def findings_of(doc) -> list[dict]:
    findings = doc["findings"] if isinstance(doc, dict) else doc
    if not isinstance(findings, list):
        die("scan JSON is neither a list of findings nor an object with `findings`")
    return findings


def flagged_breaks(truth_breaks: list[dict], findings: list[dict], tree: Path, src: SourceMap) -> tuple[list, list]:
    spans = defaultdict(list)
    for f in findings:
        rel = norm_rel(f["filename"], tree)
        start = f["location"]["row"]
        end = (f.get("end_location") or {}).get("row", start)
        spans[rel].append((start, end, f["code"]))
    hit, miss = [], []
    for b in truth_breaks:
        s_start, s_end = src.statement_span(b["file"], b["line"])
        codes = sorted({c for start, end, c in spans.get(b["file"], []) if start <= s_end and end >= s_start})
        (hit if codes else miss).append({**b, "flagged_by": codes})
    return hit, miss


def reached_functions(doc, tree: Path, src: SourceMap) -> dict[tuple[str, int], dict]:
    if not isinstance(doc, list):
        die("`scan --show-reached --output-format json` did not print a JSON array")
    out = {}
    for entry in doc:
        rel = norm_rel(entry["filename"], tree)
        fn = src.function_by_header(rel, entry["line"])
        key = (rel, fn[0]) if fn else (rel, entry["line"])
        out[key] = {"file": rel, "line": key[1], "function": entry.get("function"), "root": entry.get("root")}
    return out


# ---------------------------------------------------------------- the sample to judge


def keyed_findings(lib: dict, findings: list[dict], tree: Path, src: SourceMap, seed: str) -> list[tuple[str, dict]]:
    seen: dict[tuple, int] = {}
    keyed = []
    rows = sorted(findings, key=lambda f: (norm_rel(f["filename"], tree), f["location"]["row"], f["location"]["column"], f["code"]))
    for f in rows:
        rel = norm_rel(f["filename"], tree)
        source = src.source_line(rel, f["location"]["row"])
        ident = (lib["name"], rel, f["code"], source)
        nth = seen.get(ident, 0)
        seen[ident] = nth + 1
        key = hashlib.sha256("|".join([seed, *ident, str(nth)]).encode()).hexdigest()
        keyed.append((key, {
            "library": lib["name"], "version": lib["version"], "file": rel, "line": f["location"]["row"],
            "col": f["location"]["column"], "rule": f["code"], "source": source, "message": f["message"],
            "verdict": "", "reason": "",
        }))
    return keyed


# ---------------------------------------------------------------- commands


def share(n: int, d: int) -> str:
    return f"{n}/{d} = {100.0 * n / d:.1f}%" if d else f"{n}/0"


def cmd_truth(draw: Path, venv: Path, strict: bool = False, dest: Path | None = None) -> dict:
    doc = load_draw(draw)
    site = site_packages(venv)
    src = SourceMap(site)
    truth = {"draw_seed": doc.get("draw_seed"), "draw_date": doc.get("draw_date"), "site_packages": str(site), "libs": {}}
    for lib in doc["lib"]:
        t = runtime_truth(draw, lib, site, src, strict)
        t.update(name=lib["name"], version=lib["version"], package=lib["package"])
        truth["libs"][lib["name"]] = t
        log(
            f"{lib['name']} {lib['version']}: {len(t['cases'])} results {t['statuses']}, "
            f"{len(t['break_lines'])} break lines, {len(t['crash_lines'])} crash lines, "
            f"{len(t['recompile_lines'])} recompile lines, "
            f"{len(t['traced_functions'])} traced functions"
        )
    # `truth` writes the draw's recorded truth; `measure` writes its copy beside its own output and
    # leaves the draw directory (often another engineer's checkout) untouched.
    out = dest or draw / "truth.json"
    out.write_text(json.dumps(truth, indent=1) + "\n")
    log(f"wrote {out}")
    return truth


def cmd_measure(draw: Path, venv: Path, binary: Path, total: int, seed: str, out: Path, option_total: int = 20) -> None:
    if not binary.exists():
        die(f"no binary at {binary}")
    require_show_reached(binary)
    doc = load_draw(draw)
    site = site_packages(venv)
    out.mkdir(parents=True, exist_ok=True)
    truth = cmd_truth(draw, venv, strict=True, dest=out / "truth.json")
    report = {"binary": str(binary), "seed": seed, "draw_seed": doc.get("draw_seed"), "libs": {}}
    keyed_by_lib = {}
    gated_by_lib = {}
    totals = defaultdict(int)
    for lib in doc["lib"]:
        t = truth["libs"][lib["name"]]
        tree = make_tree(lib, site, out / "trees")
        src = SourceMap(tree)
        floor = torch_floor(dist_info(site, lib))
        roots, dropped_roots = usable_roots(binary, tree, floor, lib["roots"])
        with_roots = findings_of(run_scan(binary, tree, floor, roots, []))
        without_roots = findings_of(run_scan(binary, tree, floor, [], []))
        (out / f"{lib['key']}.scan-roots.json").write_text(json.dumps(with_roots, indent=1))
        (out / f"{lib['key']}.scan-noroots.json").write_text(json.dumps(without_roots, indent=1))
        normal_r = [f for f in with_roots if not is_option_gated(f)]
        normal_n = [f for f in without_roots if not is_option_gated(f)]
        gated_r = [f for f in with_roots if is_option_gated(f)]
        hit_r, miss_r = flagged_breaks(t["break_lines"], normal_r, tree, src)
        hit_n, miss_n = flagged_breaks(t["break_lines"], normal_n, tree, src)
        hit_ra, _ = flagged_breaks(t["break_lines"], with_roots, tree, src)
        hit_na, _ = flagged_breaks(t["break_lines"], without_roots, tree, src)
        # Break lines flagged only in the option tier: the recall the tier costs the headline.
        only_gated_r = [b for b in hit_ra if (b["file"], b["line"]) not in {(h["file"], h["line"]) for h in hit_r}]
        reached = reached_functions(run_scan(binary, tree, floor, roots, ["--show-reached"]), tree, src)
        reached_noroots = reached_functions(run_scan(binary, tree, floor, [], ["--show-reached"]), tree, src)
        traced = {(f["file"], f["line"]): f for f in t["traced_functions"]}
        traced_reached = [traced[k] for k in sorted(traced) if k in reached]
        traced_missed = [traced[k] for k in sorted(traced) if k not in reached]
        reached_traced = [reached[k] for k in sorted(reached) if k in traced]
        lib_report = {
            "version": lib["version"], "torch_floor": floor, "roots": lib["roots"], "roots_dropped": dropped_roots,
            "findings_with_roots": len(normal_r), "findings_without_roots": len(normal_n),
            "option_tier_with_roots": len(gated_r), "option_tier_without_roots": len(without_roots) - len(normal_n),
            "break_lines": len(t["break_lines"]),
            "recall_with_roots": len(hit_r), "recall_without_roots": len(hit_n),
            "recall_with_roots_any_tier": len(hit_ra), "recall_without_roots_any_tier": len(hit_na),
            "flagged_only_in_option_tier_with_roots": only_gated_r,
            "missed_with_roots": miss_r, "missed_without_roots": miss_n,
            "traced_functions": len(traced), "traced_reached": len(traced_reached),
            "traced_not_reached": traced_missed,
            "reached_functions": len(reached), "reached_traced": len(reached_traced),
            "traced_reached_without_roots": sum(1 for k in traced if k in reached_noroots),
            "traced_not_reached_without_roots": [traced[k] for k in sorted(traced) if k not in reached_noroots],
            "reached_functions_without_roots": len(reached_noroots),
        }
        report["libs"][lib["name"]] = lib_report
        for k in ("break_lines", "recall_with_roots", "recall_without_roots", "recall_with_roots_any_tier",
                  "recall_without_roots_any_tier", "option_tier_with_roots", "option_tier_without_roots",
                  "findings_with_roots", "traced_functions", "traced_reached",
                  "reached_functions", "reached_traced", "traced_reached_without_roots",
                  "reached_functions_without_roots"):
            totals[k] += lib_report[k]
        keyed_by_lib[lib["name"]] = (lib, sorted(keyed_findings(lib, normal_r, tree, src, seed), key=lambda kr: kr[0]))
        gated_by_lib[lib["name"]] = (lib, sorted(keyed_findings(lib, gated_r, tree, src, seed), key=lambda kr: kr[0]))
    report["totals"] = dict(totals)
    quota = quotas({n: len(k) for n, (_, k) in keyed_by_lib.items()}, total)
    picked = []
    for name, (lib, keyed) in keyed_by_lib.items():
        picked += sorted((row for _, row in keyed[: quota[name]]), key=lambda r: (r["file"], r["line"], r["rule"]))
        log(f"{name}: {quota[name]} of {len(keyed)} findings sampled")
    with open(out / "sample.tsv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=TSV_FIELDS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(picked)
    report["sample"] = {"file": str(out / "sample.tsv"), "total": len(picked), "per_lib": quota, "seed": seed}
    # The option tier, sampled apart (its own small share per library).
    option_quota = quotas({n: len(k) for n, (_, k) in gated_by_lib.items()}, option_total)
    option_picked = []
    for name, (lib, keyed) in gated_by_lib.items():
        option_picked += sorted((row for _, row in keyed[: option_quota[name]]), key=lambda r: (r["file"], r["line"], r["rule"]))
    with open(out / "sample-option-tier.tsv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=TSV_FIELDS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(option_picked)
    report["option_tier_sample"] = {
        "file": str(out / "sample-option-tier.tsv"), "total": len(option_picked), "per_lib": option_quota,
        "findings": sum(len(k) for _, k in gated_by_lib.values()),
    }
    (out / "measure.json").write_text(json.dumps(report, indent=1) + "\n")
    lines = [
        f"# Fresh draw {doc.get('draw_date')}: scan vs runtime truth", "",
        f"binary `{binary}`; sample seed `{seed}` ({len(picked)} findings in {out / 'sample.tsv'})", "",
        "| library | break lines | flagged, roots | flagged, no roots | traced fns reached | reached fns traced "
        "| traced fns reached, no roots | flagged any tier, roots | flagged any tier, no roots | findings, roots "
        "| option tier, roots |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in report["libs"].items():
        lines.append(
            f"| {name} {r['version']} | {r['break_lines']} | {share(r['recall_with_roots'], r['break_lines'])} | "
            f"{share(r['recall_without_roots'], r['break_lines'])} | {share(r['traced_reached'], r['traced_functions'])} | "
            f"{share(r['reached_traced'], r['reached_functions'])} | "
            f"{share(r['traced_reached_without_roots'], r['traced_functions'])} | "
            f"{share(r['recall_with_roots_any_tier'], r['break_lines'])} | "
            f"{share(r['recall_without_roots_any_tier'], r['break_lines'])} | "
            f"{r['findings_with_roots']} | {r['option_tier_with_roots']} |"
        )
    lines.append(
        f"| **all** | {totals['break_lines']} | {share(totals['recall_with_roots'], totals['break_lines'])} | "
        f"{share(totals['recall_without_roots'], totals['break_lines'])} | "
        f"{share(totals['traced_reached'], totals['traced_functions'])} | "
        f"{share(totals['reached_traced'], totals['reached_functions'])} | "
        f"{share(totals['traced_reached_without_roots'], totals['traced_functions'])} | "
        f"{share(totals['recall_with_roots_any_tier'], totals['break_lines'])} | "
        f"{share(totals['recall_without_roots_any_tier'], totals['break_lines'])} | "
        f"{totals['findings_with_roots']} | {totals['option_tier_with_roots']} |"
    )
    print("\n".join(lines))
    # The instrument's other half: which traced functions scan does not reach, to classify by cause.
    lines += ["", "## Traced by Dynamo, not reached by scan (with roots; `*` also not without roots)", ""]
    for name, r in report["libs"].items():
        missed_noroots = {(f["file"], f["line"]) for f in r["traced_not_reached_without_roots"]}
        for f in r["traced_not_reached"]:
            star = "*" if (f["file"], f["line"]) in missed_noroots else ""
            lines.append(f"- {name}: `{f['file']}:{f['line']}` {f['function']}{star}")
        for f in r["traced_not_reached_without_roots"]:
            if not any((g["file"], g["line"]) == (f["file"], f["line"]) for g in r["traced_not_reached"]):
                lines.append(f"- {name}: `{f['file']}:{f['line']}` {f['function']} (without roots only)")
    lines += ["", "## Break lines flagged only in the option tier (with roots)", ""]
    for name, r in report["libs"].items():
        for b in r["flagged_only_in_option_tier_with_roots"]:
            lines.append(f"- {name}: `{b['file']}:{b['line']}` {', '.join(b['flagged_by'])}")
    (out / "measure.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("truth", "measure"):
        p = sub.add_parser(name)
        p.add_argument("draw", type=Path, help="the draw directory (libs.toml, results/)")
        p.add_argument("--venv", type=Path, help="venv the cases ran in (its site-packages; default: libs.toml's venv, "
                       f"else {DEFAULT_VENV})")
        if name == "measure":
            p.add_argument("--binary", type=Path, required=True)
            p.add_argument("--total", type=int, default=80, help="findings to sample, equal shares per library")
            p.add_argument("--option-total", type=int, default=20,
                           help="option-tier findings to sample apart (sample-option-tier.tsv)")
            p.add_argument("--seed", help=f"sample seed (default: libs.toml's sample_seed, else {DEFAULT_SEED})")
            p.add_argument("--out", type=Path, help="output directory (default: DRAW/measure-<binary's git describe or name>)")
    args = ap.parse_args()
    # a draw's libs.toml may name its own venv and sample seed (a later draw runs in another venv)
    doc = load_draw(args.draw)
    args.venv = args.venv or Path(doc.get("venv", DEFAULT_VENV))
    if args.cmd == "measure":
        args.seed = args.seed or doc.get("sample_seed", DEFAULT_SEED)
    if args.cmd == "truth":
        cmd_truth(args.draw, args.venv)
    else:
        out = args.out or args.draw / "measure"
        cmd_measure(args.draw, args.venv, args.binary, args.total, args.seed, out, args.option_total)


if __name__ == "__main__":
    main()
