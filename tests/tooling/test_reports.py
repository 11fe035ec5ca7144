"""`scan --output-format sarif` validated against the official SARIF 2.1.0 schema (tests/data, from
the OASIS TC's repository) with the `jsonschema` package; `junit` parsed by a real XML parser."""

import copy
import json
import pathlib
import subprocess
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from conftest import REPO

SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())


def scan(graphbreak_bin, *args, cwd=REPO):
    return subprocess.run(
        [str(graphbreak_bin), "scan", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def validator():
    # The schema declares draft-04; check formats too (uri, date-time) where jsonschema can.
    cls = jsonschema.validators.validator_for(SCHEMA)
    assert cls is jsonschema.Draft4Validator
    cls.check_schema(SCHEMA)
    return cls(SCHEMA, format_checker=cls.FORMAT_CHECKER)


def test_sarif_for_every_rule_validates_against_the_2_1_0_schema(graphbreak_bin):
    result = scan(graphbreak_bin, "--output-format", "sarif", "corpus/rules")
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    codes = {r["ruleId"] for r in document["runs"][0]["results"]}
    # Every rule family shows up, so every shape of result is validated.
    assert {"BR001", "BR002", "CF001", "CR001", "SY001", "SY002", "TS001", "VR001"} <= codes, codes
    errors = sorted(validator().iter_errors(document), key=str)
    assert errors == [], "\n".join(e.message for e in errors[:10])


def test_sarif_without_findings_validates(graphbreak_bin, tmp_path):
    (tmp_path / "clean.py").write_text("import torch\n\n\ndef f(x):\n    return x + 1\n")
    result = scan(graphbreak_bin, "--output-format", "sarif", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["runs"][0]["results"] == []
    validator().validate(document)


def test_the_validator_rejects_what_the_schema_forbids(graphbreak_bin):
    """The check above could not fail if the schema were empty or the validator lenient."""
    document = json.loads(scan(graphbreak_bin, "--output-format", "sarif", "corpus/rules/SY002").stdout)
    broken = copy.deepcopy(document)
    broken["runs"][0]["results"][0]["level"] = "fatal"  # not a SARIF level
    with pytest.raises(jsonschema.ValidationError):
        validator().validate(broken)
    broken = copy.deepcopy(document)
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    with pytest.raises(jsonschema.ValidationError):
        validator().validate(broken)


def test_junit_parses_and_counts_match_the_json_output(graphbreak_bin):
    junit = scan(graphbreak_bin, "--output-format", "junit", "corpus/rules")
    findings = json.loads(scan(graphbreak_bin, "--output-format", "json", "corpus/rules").stdout)
    root = ET.fromstring(junit.stdout)
    assert root.tag == "testsuites"
    cases = root.findall("./testsuite/testcase")
    # Under the default `--option-gated warn` an option-tier finding does not fail the run, so its
    # case passes and carries the finding in <system-out>; every other finding is a failure.
    failing = [d for d in findings if not d["gated_by"]]
    gated = [d for d in findings if d["gated_by"]]
    assert gated, "corpus/rules has an option-tier finding (BR004); without one this test proves less"
    assert len(cases) == len(findings) == int(root.get("tests"))
    assert int(root.get("failures")) == len(failing)
    assert sum(int(s.get("tests")) for s in root.findall("testsuite")) == len(findings)
    assert sum(int(s.get("failures")) for s in root.findall("testsuite")) == len(failing)
    failures = [c.find("failure") for c in cases if c.find("failure") is not None]
    assert [f.get("type") for f in failures] == [d["code"] for d in failing]
    assert [f.get("message") for f in failures] == [d["message"] for d in failing]
    passed = [c for c in cases if c.find("failure") is None]
    assert len(passed) == len(gated)
    assert all(c.find("system-out") is not None and "only with" in c.find("system-out").text for c in passed)
