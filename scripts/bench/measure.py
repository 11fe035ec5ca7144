#!/usr/bin/env python3
"""Time `graphbreak scan` against `ruff check` on the same trees and print a markdown table.

Called by scripts/bench.sh after it has fetched the trees and built both tools. Timing uses hyperfine when it
is installed (median of --runs after --warmup), else a perf_counter loop. Peak RSS comes from /usr/bin/time -v
when present, else from os.wait4's rusage (the same kernel counter). Every tool is first run once with its
output captured, so a crash or a usage error (exit 2) stops the benchmark instead of being timed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

TIME_BINARY = "/usr/bin/time"
RUFF_CLASSIC = "ruff E4,E7,E9,F"


@dataclass
class Tool:
    name: str
    # Command prefix; tree directories are appended.
    argv: list[str]
    # Same, but producing JSON so findings can be counted (None: the tool only reports on stderr).
    json_argv: list[str] | None
    # Exit codes that mean "ran fine" (graphbreak: 0 = clean, 1 = findings).
    ok_exit_codes: tuple[int, ...]


@dataclass
class Target:
    name: str
    dirs: list[Path]
    files: int
    lines: int


@dataclass
class Result:
    target: str
    tool: str
    median_s: float
    cpu_s: float
    min_s: float
    max_s: float
    runs: int
    peak_rss_mib: float
    findings: str


def count_python(dirs: list[Path]) -> tuple[int, int]:
    files = lines = 0
    for root in dirs:
        for path in root.rglob("*.py"):
            if path.is_file():
                files += 1
                lines += path.read_bytes().count(b"\n")
    return files, lines


def sanity_run(tool: Tool, target: Target) -> str:
    """Run once with JSON output; fail loudly on a bad exit or a panic, return a findings summary."""
    argv = (tool.json_argv or tool.argv) + [str(d) for d in target.dirs]
    proc = subprocess.run(argv, capture_output=True)
    stderr = proc.stderr.decode(errors="replace")
    if proc.returncode not in tool.ok_exit_codes or "panicked" in stderr:
        sys.exit(
            f"measure.py: {tool.name} exited {proc.returncode} on {target.name}\n"
            f"command: {shlex.join(argv)}\nstderr (tail):\n{stderr[-3000:]}"
        )
    if tool.json_argv is None:
        return "—"
    try:
        diagnostics = json.loads(proc.stdout or b"[]")
    except json.JSONDecodeError as err:
        sys.exit(f"measure.py: {tool.name} printed invalid JSON on {target.name}: {err}")
    by_code: dict[str, int] = {}
    for diagnostic in diagnostics:
        code = diagnostic.get("code") or "syntax"
        by_code[code] = by_code.get(code, 0) + 1
    top = sorted(by_code.items(), key=lambda kv: -kv[1])[:4]
    detail = ", ".join(f"{code} {n}" for code, n in top)
    return f"{len(diagnostics)}" + (f" ({detail})" if detail else "")


def time_with_hyperfine(argv: list[str], runs: int, warmup: int) -> tuple[list[float], float]:
    """Wall times of each run, and hyperfine's mean user+system CPU seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "hyperfine.json"
        subprocess.run(
            [
                "hyperfine",
                "--shell=none",
                "--ignore-failure",  # graphbreak exits 1 when it has findings; sanity_run checked the code.
                "--style=none",
                f"--warmup={warmup}",
                f"--runs={runs}",
                f"--export-json={export}",
                shlex.join(argv),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        result = json.loads(export.read_text())["results"][0]
        return result["times"], result["user"] + result["system"]


def time_once(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and user+system CPU seconds of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def peak_rss_mib(argv: list[str]) -> float:
    if os.access(TIME_BINARY, os.X_OK):
        proc = subprocess.run(
            [TIME_BINARY, "-v"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        match = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
        if match:
            return int(match.group(1)) / 1024
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_maxrss / 1024  # Linux reports kilobytes.


def usable_cpus() -> int:
    """CPUs this process may run on (honours taskset / cgroup cpusets, unlike os.cpu_count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def tool_version(argv0: str) -> str:
    try:
        out = subprocess.run([argv0, "--version"], capture_output=True, text=True).stdout
        return out.strip() or "?"
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", action="append", required=True, metavar="NAME=DIR")
    parser.add_argument("--ruff", required=True)
    parser.add_argument("--graphbreak")
    parser.add_argument("--parse-floor", help="parse-only floor binary (scripts/bench/parse_floor)")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=BINARY",
        help="another graphbreak build to time alongside (A/B of a proposed change)",
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument(
        "--interleave",
        action="store_true",
        help="time with an interleaved loop instead of hyperfine (fairer on a machine with background load)",
    )
    args = parser.parse_args()

    ruff_check = [args.ruff, "check", "--no-cache", "--isolated", "--exit-zero"]
    tools = [
        # The pinned ruff's own default rule set (ruff 0.17 enables ~400 rules by default).
        Tool("ruff", ruff_check + ["--quiet"], ruff_check + ["--output-format=json"], (0,)),
        # The classic ruff default set (E4, E7, E9, F): the cheapest useful ruff run, a stricter yardstick.
        Tool(
            RUFF_CLASSIC,
            ruff_check + ["--select", "E4,E7,E9,F", "--quiet"],
            ruff_check + ["--select", "E4,E7,E9,F", "--output-format=json"],
            (0,),
        ),
    ]
    if args.graphbreak:
        tools.append(
            Tool(
                "graphbreak",
                [args.graphbreak, "scan", "--no-config", "--quiet"],
                [args.graphbreak, "scan", "--no-config", "--output-format", "json"],
                (0, 1),
            )
        )

    targets: list[Target] = []
    for spec in args.tree:
        name, _, directory = spec.partition("=")
        dirs = [Path(directory)]
        targets.append(Target(name, dirs, *count_python(dirs)))
    if len(targets) > 1:
        all_dirs = [d for t in targets for d in t.dirs]
        targets.append(
            Target(
                "all trees",
                all_dirs,
                sum(t.files for t in targets),
                sum(t.lines for t in targets),
            )
        )

    for spec in args.variant:
        name, _, binary = spec.partition("=")
        tools.append(
            Tool(
                name,
                [binary, "scan", "--no-config", "--quiet"],
                [binary, "scan", "--no-config", "--output-format", "json"],
                (0, 1),
            )
        )
    if args.parse_floor:
        tools.append(Tool("parse floor", [args.parse_floor], None, (0,)))

    have_hyperfine = shutil.which("hyperfine") is not None
    use_loop = args.interleave or not have_hyperfine
    cpus = usable_cpus()
    threads = os.environ.get("RAYON_NUM_THREADS", f"all ({cpus})")
    if use_loop:
        method = "perf_counter loop, tools interleaved run by run"
    else:
        method = "hyperfine"
    print(f"# graphbreak vs ruff — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    print(
        f"- machine: {cpu_model()}, {cpus} usable of {os.cpu_count()} logical CPUs, threads per tool: {threads}"
    )
    versioned = dict.fromkeys(t.argv[0] for t in tools if t.json_argv is not None)
    print(f"- tools: {', '.join(tool_version(argv0) for argv0 in versioned)}")
    print(
        f"- timing: {method}, median of {args.runs} runs after {args.warmup} warm-up; "
        f"peak RSS from one extra run; load average at start: {load_average()}",
        flush=True,
    )

    results: list[Result] = []
    for target in targets:
        findings = {}
        for tool in tools:
            print(f"[measure] {tool.name} on {target.name} ...", file=sys.stderr, flush=True)
            findings[tool.name] = sanity_run(tool, target)
        argvs = {tool.name: tool.argv + [str(d) for d in target.dirs] for tool in tools}
        if use_loop:
            # Interleaving (A B A B ...) spreads background load evenly over the tools being compared.
            times: dict[str, list[float]] = {name: [] for name in argvs}
            cpu_times: dict[str, list[float]] = {name: [] for name in argvs}
            for i in range(args.warmup + args.runs):
                for name, argv in argvs.items():
                    elapsed, cpu = time_once(argv)
                    if i >= args.warmup:
                        times[name].append(elapsed)
                        cpu_times[name].append(cpu)
            cpu_s = {name: statistics.median(cpu_times[name]) for name in argvs}
        else:
            times, cpu_s = {}, {}
            for name, argv in argvs.items():
                times[name], cpu_s[name] = time_with_hyperfine(argv, args.runs, args.warmup)
        for name, argv in argvs.items():
            results.append(
                Result(
                    target.name,
                    name,
                    statistics.median(times[name]),
                    cpu_s[name],
                    min(times[name]),
                    max(times[name]),
                    len(times[name]),
                    peak_rss_mib(argv),
                    findings[name],
                )
            )
    print(f"- load average at end: {load_average()}\n")

    ruff_median = {r.target: r.median_s for r in results if r.tool == "ruff"}
    print(
        "`vs ruff` = median wall time / ruff's (default rules) on the same tree. `CPU s` = user+system "
        "seconds (median in loop mode, mean under hyperfine): steadier than wall time under background load.\n"
    )
    lines = {t.name: t for t in targets}
    print(
        "| tree | files | lines | tool | median s | min–max s | CPU s | lines/s | peak RSS MiB | vs ruff "
        "| findings |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        target = lines[r.target]
        ratio = r.median_s / ruff_median[r.target]
        print(
            f"| {r.target} | {target.files:,} | {target.lines:,} | {r.tool} | {r.median_s:.3f} | "
            f"{r.min_s:.3f}–{r.max_s:.3f} | {r.cpu_s:.2f} | {target.lines / r.median_s:,.0f} | {r.peak_rss_mib:.0f} | "
            f"{ratio:.2f}× | {r.findings} |"
        )


if __name__ == "__main__":
    main()
