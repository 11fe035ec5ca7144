"""The held-out instrument (scripts/peer_suite/measure.py heldout) can fail: under real Dynamo it counts
a claimed break on a line Dynamo traced without breaking as a false positive, and a break nobody
claimed as a miss. The scanner is a stand-in script (the instrument's logic is under test, not the
rules); torch is real."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MEASURE = REPO / "scripts" / "peer_suite" / "measure.py"

TEST_FILE = '''\
import torch
import torch._dynamo.test_case


class T(torch._dynamo.test_case.TestCase):
    def test_item_captured(self):
        def f(x):
            y = x.sum().item()
            return x + y

        # no graph_break expected: the scalar is captured
        with torch._dynamo.config.patch(capture_scalar_outputs=True):
            torch.compile(f, backend="eager")(torch.ones(2))

    def test_deliberate(self):
        def g(x):
            torch._dynamo.graph_break()
            return x + 1

        torch.compile(g, backend="eager")(torch.ones(2))

    @torch._dynamo.config.patch(capture_scalar_outputs=True)
    def test_item_under_decorator(self):
        def k(x):
            z = x.max().item()
            return x + z

        # no graph_break expected: the decorator captures the scalar
        torch.compile(k, backend="eager")(torch.ones(2))

    def test_later_item_breaks(self):
        def m(x):
            w = x.min().item()
            return x + w

        # a graph_break: the decorator of the test before does not leak into this one
        torch.compile(m, backend="eager")(torch.ones(2))

    def test_print(self):
        def h(x):
            print("graph_break here")
            return x * 2

        torch.compile(h, backend="eager")(torch.ones(2))
'''

# Claims a break on every `.item()` and `graph_break()` line, and nothing on `print`.
FAKE_SCANNER = '''\
#!{python}
import json, pathlib, sys
if sys.argv[1] == "rules":
    print("code name family fix torch summary")
    print("BR006 deliberate-graph-break break - >=2.2 s")
    print("SY002 device-to-host-read sync - >=2.0 s")
    sys.exit(0)
out = []
for path in sorted(pathlib.Path(sys.argv[-1]).glob("*.py")):
    for row, line in enumerate(path.read_text().splitlines(), 1):
        if ".item()" in line:
            out.append({{"code": "SY002", "filename": str(path), "location": {{"row": row}},
                         "message": "reads a tensor value: graph break under torch.compile"}})
        elif "graph_break()" in line:
            out.append({{"code": "BR006", "filename": str(path), "location": {{"row": row}},
                         "message": "deliberate graph break"}})
print(json.dumps(out))
sys.exit(1 if out else 0)
'''


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    root = tmp_path_factory.mktemp("heldout")
    (root / "test" / "dynamo").mkdir(parents=True)
    (root / "test" / "dynamo" / "test_sample.py").write_text(TEST_FILE)
    scanner = root / "fake_scanner"
    scanner.write_text(FAKE_SCANNER.format(python=sys.executable))
    scanner.chmod(0o755)
    out = root / "out.json"
    proc = subprocess.run(
        [sys.executable, str(MEASURE), "heldout", "--torch-tests", str(root), "--sources",
         "test/dynamo/test_sample.py", "--binary", f"stand-in={scanner}", "--python", sys.executable,
         "--workdir", str(root / "modules"), "--json", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text())


def test_breaks_come_from_dynamo(result):
    texts = sorted(c["text"] for c in result["cases"])
    assert texts == ['print("graph_break here")', "torch._dynamo.graph_break()", "w = x.min().item()"]


def test_a_claim_on_a_line_dynamo_traced_without_breaking_is_a_false_positive(result):
    r = result["results"]["stand-in"]
    assert (r["claimed"], r["on_break"]) == (4, 2)
    # the decorated test's `.item()` is captured too: its `@config.patch` is restated
    assert sorted(fp["text"] for fp in r["false_positives"]) == [
        "y = x.sum().item()", "z = x.max().item()"]


def test_an_unclaimed_break_is_a_miss(result):
    r = result["results"]["stand-in"]
    assert sorted(c["text"] for c in r["hits"]) == ["torch._dynamo.graph_break()", "w = x.min().item()"]
    assert [c["text"] for c in r["misses"]] == ['print("graph_break here")']


def test_the_dev_draw_is_reproducible_and_spent():
    proc = subprocess.run(
        # The dev draw was made when the manifest's size limit was 150000 characters.
        [sys.executable, str(MEASURE), "draw", "--seed", "dev-2026-12-02", "--k", "2", "--include-spent",
         "--max-chars", "150000"],
        capture_output=True, text=True, check=True,
    )
    drawn = [line.split("\t")[0] for line in proc.stdout.splitlines() if not line.startswith("#")]
    assert drawn == ["test/dynamo/test_reorder_logs.py", "test/dynamo/test_hooks.py"]
    # every unspent file (the header says how many; the pool may be exhausted) leaves the dev
    # files out
    header = subprocess.run(
        [sys.executable, str(MEASURE), "draw", "--seed", "dev-2026-12-02", "--k", "0"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()[0]
    unspent = int(header.rsplit("unspent = ", 1)[1])
    proc = subprocess.run(
        [sys.executable, str(MEASURE), "draw", "--seed", "dev-2026-12-02", "--k", str(unspent)],
        capture_output=True, text=True, check=True,
    )
    everything = {line.split("\t")[0] for line in proc.stdout.splitlines() if not line.startswith("#")}
    assert len(everything) == unspent
    assert not set(drawn) & everything
    # asking for more than is left is a clear error (exit 2), never a traceback
    over = subprocess.run(
        [sys.executable, str(MEASURE), "draw", "--seed", "dev-2026-12-02", "--k", str(unspent + 1)],
        capture_output=True, text=True,
    )
    assert over.returncode == 2, over
    assert "unspent left" in over.stderr and "Traceback" not in over.stderr, over.stderr


def test_assemble_refuses_a_text_of_the_wrong_length(tmp_path):
    page = tmp_path / "p.0.json"
    page.write_text(json.dumps("import torch\n"))
    proc = subprocess.run(
        [sys.executable, str(MEASURE), "assemble", "--path", "test/dynamo/test_hooks.py",
         "--root", str(tmp_path / "root"), str(page)],
        capture_output=True, text=True,
    )
    assert proc.returncode != 0 and "manifest says 28761" in proc.stderr
    assert not (tmp_path / "root" / "test" / "dynamo" / "test_hooks.py").exists()


def test_a_message_saying_no_graph_break_is_not_a_break_claim():
    sys.path.insert(0, str(MEASURE.parent))
    import heldout  # noqa: PLC0415 - the instrument's own module

    families = {"SY002": "sync", "BR006": "break"}
    sync_only = {"code": "SY002", "message": "`.item()` reads a tensor value in Python: a device "
                 "sync when the tensor is on an accelerator (no graph break: this tree sets "
                 "torch._dynamo.config.capture_scalar_outputs = True)"}
    breaking = {"code": "SY002", "message": "`.item()` reads a tensor value in Python: graph "
                "break under torch.compile, and a device sync"}
    assert not heldout.claims_break(sync_only, families)
    assert heldout.claims_break(breaking, families)
    assert heldout.claims_break({"code": "BR006", "message": "deliberate"}, families)
