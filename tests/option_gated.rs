//! The option tier (src/semantic/options.rs): a finding reached only when a constructor option
//! that nothing in the scanned files sets differs from its default is reported apart, names the
//! option, and does not fail the run unless `--option-gated error`. corpus/reach/option_gated
//! marks each line `# gated` or `# normal`; tests/python/test_option_proofs.py shows under Dynamo
//! that each gated line breaks only with its option set.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{finding_tiers, graphbreak, stdout, tagged_lines, text};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/option_gated")
}

/// `# gated` / `# normal` per line of the fixture's model.
fn marked() -> BTreeMap<u32, &'static str> {
    let source = std::fs::read_to_string(fixture().join("pkg/model.py")).unwrap();
    tagged_lines(&source, &["gated", "normal"])
        .into_iter()
        .collect()
}

/// Line → the tier scan reports it in, for the fixture's model.
fn tiers(args: &[&str]) -> BTreeMap<u32, &'static str> {
    finding_tiers(&fixture(), args)
        .into_iter()
        .filter(|(name, _, _)| name == "model.py")
        .map(|(_, row, tier)| (row, tier))
        .collect()
}

#[test]
fn each_finding_lands_in_its_marked_tier_with_and_without_roots() {
    let expected = marked();
    assert_eq!(expected.len(), 13);
    assert_eq!(tiers(&[]), expected);
    let roots = [
        "--roots",
        "pkg.model.Net",
        "--roots",
        "pkg.model.Outer",
        "--roots",
        "pkg.model.Received",
    ];
    assert_eq!(tiers(&roots), expected);
}

#[test]
fn a_gated_finding_names_its_option_in_json_and_text() {
    let out = graphbreak(
        &fixture(),
        &["scan", ".", "--no-config", "--output-format", "json"],
    );
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ema = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["location"]["row"] == 33)
        .expect("line 33 reported");
    assert_eq!(
        ema["gated_by"],
        serde_json::json!([{"class": "pkg.model.Net", "option": "use_ema", "default": "False", "needs": "True"}])
    );
    let out = graphbreak(&fixture(), &["scan", ".", "--no-config"]);
    let shown = stdout(&out);
    assert!(shown.contains("only with Net(mode != 'linear')"), "{shown}");
    assert!(shown.contains("only with Net(proj is not None)"), "{shown}");
    assert!(shown.contains("Found 2 findings"), "{shown}");
    assert!(
        shown.contains("11 more only with a constructor option"),
        "{shown}"
    );
    // Listed after the normal tier.
    let last_normal = shown.find("model.py:36:").unwrap();
    let first_gated = shown.find("model.py:33:").unwrap();
    assert!(last_normal < first_gated, "{shown}");
}

/// An attribute copied from a submodule's attribute (`self.flag = self.inner.flag`, or from a
/// received `net: Inner`), the submodule's attribute read directly, and an option normalized
/// from `None` (`scale or False`, `shift if shift is not None else False`) are gated by the
/// submodule's own option, named as `Inner(flag=True)`.
#[test]
fn a_borrowed_or_normalized_option_names_the_option_it_comes_from() {
    let out = graphbreak(
        &fixture(),
        &["scan", ".", "--no-config", "--output-format", "json"],
    );
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let gate = |row: u64| {
        findings
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["location"]["row"] == row)
            .unwrap_or_else(|| panic!("line {row} reported"))["gated_by"]
            .clone()
    };
    let inner = |option: &str, default: &str| serde_json::json!([{"class": "pkg.model.Inner", "option": option, "default": default, "needs": "True"}]);
    assert_eq!(gate(71), inner("scale", "None"));
    assert_eq!(gate(73), inner("shift", "None"));
    for row in [86, 88, 100] {
        assert_eq!(gate(row), inner("flag", "False"), "line {row}");
    }
}

#[test]
fn the_option_tier_fails_the_run_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let model = std::fs::read_to_string(fixture().join("pkg/model.py")).unwrap();
    // Only the gated part: drop `Block`'s set option by leaving out build.py.
    common::write(dir.path(), "pkg/__init__.py", "");
    common::write(dir.path(), "pkg/model.py", &model);
    let run = |args: &[&str]| {
        let mut all = vec!["scan", "."];
        all.extend_from_slice(args);
        graphbreak(dir.path(), &all)
    };
    // Block's option is unset here too: every finding but `_shared`'s is gated.
    let warn = run(&["--no-config"]);
    assert_eq!(warn.status.code(), Some(1), "{}", text(&warn));
    let only_gated = tempfile::tempdir().unwrap();
    common::write(
        only_gated.path(),
        "m.py",
        "\
import torch


class Net(torch.nn.Module):
    def __init__(self, noisy=False):
        super().__init__()
        self.noisy = noisy

    def forward(self, x):
        if self.noisy:
            x = x + x.sum().item()
        return x
",
    );
    let run = |args: &[&str]| {
        let mut all = vec!["scan", ".", "--no-config"];
        all.extend_from_slice(args);
        graphbreak(only_gated.path(), &all)
    };
    let warn = run(&[]);
    assert_eq!(warn.status.code(), Some(0), "{}", text(&warn));
    assert!(
        stdout(&warn).contains("only with Net(noisy=True)"),
        "{}",
        text(&warn)
    );
    let error = run(&["--option-gated", "error"]);
    assert_eq!(error.status.code(), Some(1), "{}", text(&error));
    let hide = run(&["--option-gated", "hide"]);
    assert_eq!(hide.status.code(), Some(0), "{}", text(&hide));
    assert!(!stdout(&hide).contains("m.py:11"), "{}", text(&hide));
    assert!(
        stdout(&hide).contains("1 more only with"),
        "{}",
        text(&hide)
    );
    let sarif = run(&["--output-format", "sarif"]);
    let sarif: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"][0]["level"], "note");
    // The setting in pyproject.toml, overridden by the flag.
    common::write(
        only_gated.path(),
        "pyproject.toml",
        "[tool.graphbreak]\noption-gated = \"error\"\n",
    );
    let configured = graphbreak(only_gated.path(), &["scan", "."]);
    assert_eq!(configured.status.code(), Some(1), "{}", text(&configured));
    let flagged = graphbreak(only_gated.path(), &["scan", ".", "--option-gated", "warn"]);
    assert_eq!(flagged.status.code(), Some(0), "{}", text(&flagged));
}

#[test]
fn an_option_set_anywhere_in_the_tree_is_the_normal_tier() {
    let dir = tempfile::tempdir().unwrap();
    let net = "\
import torch


class Net(torch.nn.Module):
    def __init__(self, width, noisy=False):
        super().__init__()
        self.noisy = noisy

    def forward(self, x):
        if self.noisy:
            x = x + x.sum().item()
        return x
";
    common::write(dir.path(), "m.py", net);
    for (site, gated) in [
        ("Net(3, noisy=True)", false),
        ("Net(3, noisy=cfg.noisy)", false),
        ("Net(3, True)", false),
        ("Net(3, *args)", false),
        ("Net(3, noisy=False)", true),
        ("Net(3, **cfg)", true),
        ("Net(3)", true),
    ] {
        common::write(
            dir.path(),
            "build.py",
            &format!("from m import Net\n\n\ndef make(cfg, args):\n    return {site}\n"),
        );
        let out = graphbreak(
            dir.path(),
            &["scan", ".", "--no-config", "--output-format", "json"],
        );
        let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let finding = &findings.as_array().unwrap()[0];
        assert_eq!(
            !finding["gated_by"].as_array().unwrap().is_empty(),
            gated,
            "{site}: {finding}"
        );
    }
}

#[test]
fn an_option_passed_on_from_the_callers_own_option_follows_it() {
    // `Inner(noisy=self.noisy)`: Inner's option is set exactly when Outer's is.
    let dir = tempfile::tempdir().unwrap();
    common::write(
        dir.path(),
        "m.py",
        "\
import torch


class Inner(torch.nn.Module):
    def __init__(self, noisy=False):
        super().__init__()
        self.noisy = noisy

    def forward(self, x):
        if self.noisy:
            x = x + x.sum().item()
        return x


class Outer(torch.nn.Module):
    def __init__(self, loud=False):
        super().__init__()
        self.loud = loud
        self.inner = Inner(noisy=self.loud)

    def forward(self, x):
        return self.inner(x)
",
    );
    let gated = |site: &str| {
        common::write(
            dir.path(),
            "build.py",
            &format!("from m import Outer\n\n\ndef make():\n    return {site}\n"),
        );
        let out = graphbreak(
            dir.path(),
            &["scan", ".", "--no-config", "--output-format", "json"],
        );
        let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let finding = &findings.as_array().unwrap()[0];
        !finding["gated_by"].as_array().unwrap().is_empty()
    };
    assert!(gated("Outer()"));
    assert!(!gated("Outer(loud=True)"));
}

/// JUnit follows the exit status: under `warn` an option-tier finding is a passing test case that
/// carries the finding in `<system-out>`; under `error` it fails like any other.
#[test]
fn junit_fails_an_option_tier_case_only_when_the_run_fails_on_it() {
    let expected = marked();
    let gated = expected.values().filter(|tag| **tag == "gated").count();
    let normal = expected.len() - gated;
    let junit = |mode: &str| {
        let out = graphbreak(
            &fixture(),
            &[
                "scan",
                ".",
                "--no-config",
                "--output-format",
                "junit",
                "--option-gated",
                mode,
            ],
        );
        stdout(&out)
    };
    let warn = junit("warn");
    let model_cases = |xml: &str, inner: &str| {
        xml.split("<testcase ")
            .filter(|case| case.contains("model.py") && case.contains(inner))
            .count()
    };
    assert_eq!(model_cases(&warn, "<failure "), normal, "{warn}");
    assert_eq!(model_cases(&warn, "<system-out>"), gated, "{warn}");
    assert!(warn.contains("only with"), "{warn}");
    let error = junit("error");
    assert_eq!(model_cases(&error, "<failure "), normal + gated, "{error}");
    assert_eq!(model_cases(&error, "<system-out>"), 0, "{error}");
}
