"""Share of runtime graph-break lines that `graphbreak scan` flags.

Reads the runtime events of a `graphbreak check` run (results.jsonl: one CaseResult per line, with
`runtime_events` of kind "break"), scans the installed packages those lines live in (no roots, as a
user scanning a library would), and prints per case and overall how many distinct break lines
(file:line) carry a finding on the same line.

usage: python scripts/recall_vs_runtime.py RESULTS.jsonl [--graphbreak BIN] [--site-packages DIR]
"""
import argparse
import collections
import json
import os
import subprocess

parser = argparse.ArgumentParser()
parser.add_argument("results")
parser.add_argument("--graphbreak", default="target/release/graphbreak")
parser.add_argument("--site-packages", required=True)
opts = parser.parse_args()
site = os.path.realpath(opts.site_packages) + "/"

cases = collections.OrderedDict()
for line in open(opts.results):
    record = json.loads(line)
    lines = set()
    for event in record.get("runtime_events") or []:
        if event.get("kind") != "break":
            continue
        path = os.path.realpath(event["filename"])
        if path.startswith(site):
            lines.add((path, event["line"], event.get("gb_code")))
    cases[record["case"]] = lines

packages = sorted({p[len(site):].split("/")[0] for lines in cases.values() for p, _, _ in lines})
scan = subprocess.run(
    [opts.graphbreak, "scan", "--exit-zero", "--output-format", "json"]
    + [site + p for p in packages],
    capture_output=True, text=True, check=True,
)
flagged = collections.defaultdict(set)
for item in json.loads(scan.stdout):
    flagged[(os.path.realpath(item["filename"]), item["location"]["row"])].add(item["code"])

all_lines, hit_lines = set(), set()
for case, lines in cases.items():
    if not lines:
        continue
    keyed = {(p, l): gb for p, l, gb in lines}
    hits = [k for k in keyed if flagged.get(k)]
    print(f"{case}: {len(hits)}/{len(keyed)}")
    for (p, l), gb in sorted(keyed.items()):
        codes = ",".join(sorted(flagged.get((p, l), []))) or "MISSED"
        print(f"    {p[len(site):]}:{l} {gb or '?'} -> {codes}")
    all_lines |= set(keyed)
    hit_lines |= set(hits)
print(f"distinct runtime break lines flagged: {len(hit_lines)}/{len(all_lines)}"
      f" ({100 * len(hit_lines) / max(1, len(all_lines)):.0f}%)")
