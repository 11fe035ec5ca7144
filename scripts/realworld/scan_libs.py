#!/usr/bin/env python3
"""Measure `graphbreak scan` precision on real model libraries (docs/real-code-precision.md).

Steps (each a subcommand; `all` runs fetch + scan + sample):

  fetch     pip-download the pinned wheels of scripts/realworld/libs.toml (`--no-deps`, binary only, one
            fixed platform so every machine gets the same files) and unpack each under
            bench/.work/realworld/trees/<name>-<version> (gitignored).
  scan      run `graphbreak scan --output-format json` on each tree with the library's roots and its
            declared torch floor; write bench/.work/realworld/out/<label>/<name>.json + summary.tsv.
  sample    draw the fixed seeded sample (--total findings in equal shares per library, a library with
            fewer findings giving its rest to the others; per library the findings with the lowest
            sha256(seed | library | file | code | source line | n-th occurrence)) and write a TSV to judge.
            The key has no line number and no binary in it, so a finding that survives a scanner change
            keeps its place: re-running after a change only brings in the findings that changed.
            `--previous TSV` carries over verdicts of findings whose key and message are unchanged (a finding
            whose message changed is left unjudged, with the old verdict as a RECHECK hint).
  precision read a judged TSV (verdict column `right`/`wrong`) and print strict precision overall and
            per library.

Usage:
  scripts/realworld/scan_libs.py all --binary target/release/graphbreak --label main
  scripts/realworld/scan_libs.py scan --binary BIN --label LABEL [--no-roots]
  scripts/realworld/scan_libs.py sample --label LABEL [--total 75] [--previous docs/judged/OLD.tsv] --out FILE
  scripts/realworld/scan_libs.py precision docs/judged/scan-precision-DATE.tsv
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIBS_TOML = Path(__file__).resolve().with_name("libs.toml")
WORK = REPO / "bench" / ".work" / "realworld"
WHEELS = WORK / "wheels"
TREES = WORK / "trees"
OUT = WORK / "out"

# One platform for every machine: torchvision is the only non-pure wheel, and its Python source is the same
# on every platform, but pinning the tag makes the download itself reproducible.
PIP_PLATFORM = ["--platform", "manylinux_2_28_x86_64", "--python-version", "3.11", "--implementation", "cp"]
DEFAULT_SEED = "graphbreak-realworld-1"
TSV_FIELDS = [
    "library",
    "version",
    "file",
    "line",
    "col",
    "rule",
    "source",
    "message",
    "verdict",
    "reason",
]


def log(msg: str) -> None:
    print(f"[realworld] {msg}", file=sys.stderr)


def load_libs(only: list[str] | None) -> list[dict]:
    libs = tomllib.loads(LIBS_TOML.read_text())["lib"]
    if only:
        unknown = set(only) - {lib["name"] for lib in libs}
        if unknown:
            sys.exit(f"scan_libs.py: not in {LIBS_TOML.name}: {', '.join(sorted(unknown))}")
        libs = [lib for lib in libs if lib["name"] in only]
    return libs


def tree_of(lib: dict) -> Path:
    return TREES / f"{lib['name']}-{lib['version']}"


def fetch(libs: list[dict]) -> None:
    WHEELS.mkdir(parents=True, exist_ok=True)
    for lib in libs:
        dest = tree_of(lib)
        if (dest / ".unpacked").exists():
            continue
        spec = f"{lib['name']}=={lib['version']}"
        log(f"downloading {spec}")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--only-binary=:all:",
                *PIP_PLATFORM,
                "--dest",
                str(WHEELS),
                spec,
            ],
            check=True,
        )
        wheel = min(WHEELS.glob(f"{lib['name']}-{lib['version']}-*.whl"))
        if dest.exists():
            subprocess.run(["rm", "-rf", str(dest)], check=True)
        dest.mkdir(parents=True)
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(dest)
        # A repository boundary: bench/.work is gitignored in the graphbreak checkout, and a walker that
        # honours parent .gitignore files must not take the tree for ignored files. It also makes the tree
        # the project root, so qualified names start at the package (`timm.models...`).
        subprocess.run(["git", "init", "--quiet", str(dest)], check=True)
        (dest / ".unpacked").touch()


def torch_floor(lib: dict) -> str:
    """The floor the library declares for torch itself (no extras), as X.Y; `latest` when none."""
    for meta in tree_of(lib).glob("*.dist-info/METADATA"):
        for line in meta.read_text(errors="replace").splitlines():
            m = re.match(r"Requires-Dist:\s*torch\s*\(?\s*([^;)]*)\)?\s*(;.*)?$", line)
            if not m:
                continue
            marker = m.group(2) or ""
            if "extra ==" in marker and 'extra == "torch"' not in marker:
                continue
            if "sys_platform" in marker or "platform_" in marker:
                continue
            spec = re.search(r"(>=|==|~=)\s*(\d+)\.(\d+)", m.group(1))
            if spec:
                return f"{spec.group(2)}.{spec.group(3)}"
    return "latest"


def scan(libs: list[dict], binary: Path, label: str, use_roots: bool) -> None:
    outdir = OUT / label
    outdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for lib in libs:
        tree = tree_of(lib)
        if not (tree / ".unpacked").exists():
            sys.exit(f"scan_libs.py: {tree} is missing; run `fetch` first")
        floor = torch_floor(lib)
        cmd = [str(binary), "scan", ".", "--output-format", "json", "--exit-zero", "--quiet", "--torch-version", floor]
        if use_roots:
            for pattern in lib["roots"]:
                cmd += ["--roots", pattern]
        log(f"{lib['name']}: {' '.join(cmd[1:])}")
        start = time.monotonic()
        proc = subprocess.run(cmd, check=False, cwd=tree, capture_output=True, text=True)
        seconds = time.monotonic() - start
        if proc.returncode != 0:
            sys.exit(f"scan_libs.py: graphbreak exited {proc.returncode} on {lib['name']}:\n{proc.stderr}")
        findings = json.loads(proc.stdout)
        for f in findings:
            f["filename"] = str(Path(f["filename"]).resolve().relative_to(tree.resolve()))
        doc = {
            "library": lib["name"],
            "version": lib["version"],
            "torch_floor": floor,
            "roots": lib["roots"] if use_roots else [],
            "command": cmd[1:],
            "seconds": round(seconds, 3),
            "findings": findings,
        }
        (outdir / f"{lib['name']}.json").write_text(json.dumps(doc, indent=1) + "\n")
        by_code: dict[str, int] = {}
        for f in findings:
            by_code[f["code"]] = by_code.get(f["code"], 0) + 1
        rows.append(
            (
                lib["name"],
                lib["version"],
                floor,
                len(findings),
                seconds,
                " ".join(f"{c}={n}" for c, n in sorted(by_code.items())),
            )
        )
    with open(outdir / "summary.tsv", "w") as fh:
        fh.write("library\tversion\ttorch_floor\tfindings\tseconds\tby_rule\n")
        fh.writelines(f"{r[0]}\t{r[1]}\t{r[2]}\t{r[3]}\t{r[4]:.2f}\t{r[5]}\n" for r in rows)
    print((outdir / "summary.tsv").read_text(), end="")


def source_line(tree: Path, rel: str, row: int) -> str:
    try:
        lines = (tree / rel).read_text(errors="replace").splitlines()
        return lines[row - 1].strip() if 0 < row <= len(lines) else ""
    except OSError:
        return ""


def keyed_findings(lib: dict, label: str, seed: str) -> list[tuple[str, dict]]:
    path = OUT / label / f"{lib['name']}.json"
    if not path.exists():
        sys.exit(f"scan_libs.py: {path} is missing; run `scan --label {label}` first")
    doc = json.loads(path.read_text())
    tree = tree_of(lib)
    seen: dict[tuple, int] = {}
    keyed = []
    for f in sorted(
        doc["findings"], key=lambda f: (f["filename"], f["location"]["row"], f["location"]["column"], f["code"])
    ):
        src = source_line(tree, f["filename"], f["location"]["row"])
        ident = (lib["name"], f["filename"], f["code"], src)
        nth = seen.get(ident, 0)
        seen[ident] = nth + 1
        key = hashlib.sha256("|".join([seed, *ident, str(nth)]).encode()).hexdigest()
        row = {
            "library": lib["name"],
            "version": lib["version"],
            "file": f["filename"],
            "line": f["location"]["row"],
            "col": f["location"]["column"],
            "rule": f["code"],
            "source": src,
            "message": f["message"],
            "verdict": "",
            "reason": "",
        }
        keyed.append((key, row))
    return keyed


def previous_verdicts(path: Path | None) -> dict[tuple, tuple[str, str, str]]:
    """(library, file, rule, source line) -> (verdict, reason, message) from an earlier judged TSV."""
    if path is None:
        return {}
    out = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            if r.get("verdict"):
                out[(r["library"], r["file"], r["rule"], r["source"])] = (r["verdict"], r["reason"], r["message"])
    return out


def quotas(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Equal shares of `total`; a library with fewer findings than its share gives the rest to the others."""
    quota = {name: 0 for name in sizes}
    left = total
    open_libs = [name for name in sizes if sizes[name] > 0]
    while left > 0 and open_libs:
        share = max(1, left // len(open_libs))
        for name in sorted(open_libs, key=lambda n: sizes[n]):
            take = min(share, sizes[name] - quota[name], left)
            quota[name] += take
            left -= take
        open_libs = [name for name in open_libs if quota[name] < sizes[name]]
    return quota


def sample(libs: list[dict], label: str, total: int, seed: str, previous: Path | None, out: Path) -> None:
    prev = previous_verdicts(previous)
    picked = []
    carried = 0
    keyed_by_lib = {lib["name"]: sorted(keyed_findings(lib, label, seed), key=lambda kr: kr[0]) for lib in libs}
    quota = quotas({name: len(k) for name, k in keyed_by_lib.items()}, total)
    for lib in libs:
        keyed = keyed_by_lib[lib["name"]]
        per_lib = quota[lib["name"]]
        for _, row in sorted(keyed[:per_lib], key=lambda kr: (kr[1]["file"], kr[1]["line"], kr[1]["rule"])):
            hit = prev.get((row["library"], row["file"], row["rule"], row["source"]))
            if hit and hit[2] == row["message"]:
                row["verdict"], row["reason"] = hit[0], hit[1]
                carried += 1
            elif hit:
                # Same finding, new wording: the verdict may depend on the message, so it is judged again; the
                # old verdict is left as a hint in the reason column.
                row["reason"] = f"RECHECK (message changed; was {hit[0]}: {hit[1]})"
            picked.append(row)
        log(f"{lib['name']}: {min(per_lib, len(keyed))} of {len(keyed)} findings sampled")
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=TSV_FIELDS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        for row in picked:
            w.writerow(row)
    log(f"wrote {len(picked)} findings to {out} ({carried} verdicts carried over from {previous})")


def precision(path: Path) -> None:
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    per: dict[str, list[int]] = {}
    unjudged = 0
    for r in rows:
        v = r["verdict"].strip()
        if v not in ("right", "wrong"):
            unjudged += 1
            continue
        acc = per.setdefault(r["library"], [0, 0])
        acc[0] += v == "right"
        acc[1] += 1
    total_right = sum(a[0] for a in per.values())
    total = sum(a[1] for a in per.values())
    print("| library | right | judged | strict precision |")
    print("|---|---:|---:|---:|")
    for name, (right, n) in per.items():
        print(f"| {name} | {right} | {n} | {100 * right / n:.0f}% |")
    if total:
        print(f"| **all** | {total_right} | {total} | **{100 * total_right / total:.1f}%** |")
    if unjudged:
        print(f"\n{unjudged} rows without a verdict", file=sys.stderr)
        sys.exit(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("fetch", "scan", "sample", "all"):
        p = sub.add_parser(name)
        p.add_argument("--lib", action="append", help="only this library (repeatable)")
        if name in ("scan", "all"):
            p.add_argument("--binary", type=Path, default=REPO / "target" / "release" / "graphbreak")
            p.add_argument("--no-roots", action="store_true", help="scan without roots (every forward)")
        if name in ("scan", "sample", "all"):
            p.add_argument("--label", required=True, help="output folder name under bench/.work/realworld/out")
        if name in ("sample", "all"):
            p.add_argument(
                "--total", type=int, default=75, help="sample size over all libraries, in equal shares (default 75)"
            )
            p.add_argument("--seed", default=DEFAULT_SEED)
            p.add_argument("--previous", type=Path, help="judged TSV whose verdicts carry over")
            p.add_argument("--out", type=Path, help="TSV to write (default: out/<label>/sample.tsv)")
    p = sub.add_parser("precision")
    p.add_argument("tsv", type=Path)
    args = ap.parse_args()

    if args.cmd == "precision":
        precision(args.tsv)
        return
    libs = load_libs(args.lib)
    if args.cmd in ("fetch", "all"):
        fetch(libs)
    if args.cmd in ("scan", "all"):
        binary = args.binary.resolve()
        if not binary.is_file():
            sys.exit(f"scan_libs.py: no graphbreak binary at {binary} (cargo build --release)")
        scan(libs, binary, args.label, not args.no_roots)
    if args.cmd in ("sample", "all"):
        out = args.out or OUT / args.label / "sample.tsv"
        sample(libs, args.label, args.total, args.seed, args.previous, out)


if __name__ == "__main__":
    main()
