"""Recall and precision of `graphbreak scan` per library, from a `graphbreak check` JSON report whose
results carry `cross_check` (see src/check/cross_check.rs).

Counted over distinct source sites, not cases: a line where Dynamo breaks in both the eval and the training
case of a model is one runtime break line.
- runtime break lines: distinct (file, line) of break and crash events (recompile sites are listed apart);
- recall: share of those lines with at least one finding on the same statement (predicted_by not empty);
- precision: of the distinct findings (code, file, line) on traced lines that have a verdict, the share
  confirmed (an event of the kind they claim happened on their statement in some case);
- unpredicted break lines grouped by Dynamo's GB code: the candidates for new rules.

usage: python3 summarize.py REPORT.json [REPORT.json ...] > summary.md
"""

import json
import os
import sys
from collections import defaultdict


def library_of(result):
    case = result.get("case") or "?"
    stem = os.path.basename(case.split("::")[0])
    return stem[: -len("_cases.py")] if stem.endswith("_cases.py") else stem


def short(path):
    marker = os.sep + "site-packages" + os.sep
    return path.split(marker, 1)[1] if path and marker in path else (path or "<unknown>")


class Library:
    def __init__(self):
        self.cases = []
        self.statuses = defaultdict(int)
        self.break_sites = {}  # (file, line) -> {"predicted": set, "gb": set, "reason": str, "count": int}
        self.recompile_sites = {}
        self.findings = {}  # (code, file, line) -> verdicts
        self.torch = set()
        self.without_trace = 0

    def add(self, result):
        self.cases.append(result.get("case"))
        self.statuses[result.get("status")] += 1
        self.torch.add(result.get("torch_version"))
        check = result.get("cross_check")
        if not check:
            self.without_trace += 1
            return
        for event in check.get("events", []):
            sites = self.recompile_sites if event["kind"] == "recompile" else self.break_sites
            key = (event.get("filename"), event.get("line"))
            site = sites.setdefault(key, {"predicted": set(), "gb": set(), "reason": event.get("reason") or "",
                                          "count": 0, "kinds": set()})
            site["predicted"].update(event.get("predicted_by") or [])
            if event.get("gb_code"):
                site["gb"].add(event["gb_code"])
            site["kinds"].add(event["kind"])
            site["count"] += event.get("count", 1)
        for finding in check.get("findings", []):
            key = (finding["code"], finding["filename"], finding["line"])
            self.findings.setdefault(key, []).append(finding.get("confirmed"))

    def recall(self):
        predicted = sum(1 for site in self.break_sites.values() if site["predicted"])
        return predicted, len(self.break_sites)

    def precision(self):
        confirmed = unconfirmed = 0
        for verdicts in self.findings.values():
            if True in verdicts:
                confirmed += 1
            elif False in verdicts:
                unconfirmed += 1
        return confirmed, confirmed + unconfirmed

    def unpredicted_by_code(self):
        groups = defaultdict(list)
        for (filename, line), site in sorted(self.break_sites.items(), key=lambda item: (str(item[0][0]), item[0][1] or 0)):
            if site["predicted"]:
                continue
            code = ",".join(sorted(site["gb"])) or "(no GB code: %s)" % "/".join(sorted(site["kinds"]))
            groups[code].append((filename, line, site))
        return groups


def share(part, whole):
    return "n/a" if not whole else "%d%%" % round(100.0 * part / whole)


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def main(paths):
    libraries = defaultdict(Library)
    total = Library()
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        for result in document.get("results", []):
            # One row per (library, torch release): the same model breaks differently on another torch.
            torch_release = (result.get("torch_version") or "?").split("+")[0]
            libraries["%s · torch %s" % (library_of(result), torch_release)].add(result)
            total.add(result)
    out = []
    out.append("| library | torch build | cases (status) | runtime break lines | predicted (recall) | traced-line findings with a verdict | confirmed (precision) | recompile sites (predicted) |")
    out.append("|---|---|---|---|---|---|---|---|")
    for name, library in sorted(libraries.items()) + [("**all**", total)]:
        predicted, lines = library.recall()
        confirmed, judged = library.precision()
        recompiles = len(library.recompile_sites)
        recompiles_predicted = sum(1 for site in library.recompile_sites.values() if site["predicted"])
        statuses = ", ".join("%d %s" % (count, status) for status, count in sorted(library.statuses.items()))
        out.append("| %s | %s | %d (%s) | %d | %d (%s) | %d | %d (%s) | %d (%d) |" % (
            name, ", ".join(sorted(v for v in library.torch if v)), len(library.cases), statuses, lines, predicted,
            share(predicted, lines), judged, confirmed, share(confirmed, judged), recompiles, recompiles_predicted))
    out.append("")
    for name, library in sorted(libraries.items()):
        groups = library.unpredicted_by_code()
        if not groups:
            continue
        out.append("### %s: unpredicted runtime break lines by GB code" % name)
        out.append("")
        out.append("| GB code | lines | sites (file:line — reason) |")
        out.append("|---|---|---|")
        for code, sites in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
            described = "<br>".join(
                "%s:%s — %s" % (short(filename), line, cell(site["reason"])[:120]) for filename, line, site in sites
            )
            out.append("| %s | %d | %s |" % (code, len(sites), described))
        out.append("")
    unconfirmed = [(key, verdicts) for key, verdicts in sorted(total.findings.items(), key=str) if True not in verdicts and False in verdicts]
    if unconfirmed:
        out.append("### Unconfirmed findings (claimed a break, crash or recompile that did not happen)")
        out.append("")
        for (code, filename, line), _ in unconfirmed:
            out.append("- %s %s:%s" % (code, short(filename), line))
        out.append("")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
