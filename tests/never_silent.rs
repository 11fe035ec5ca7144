//! A scan never passes silently: root patterns that name nothing fail with suggestions, forwards
//! the roots leave out are counted, 0 files and notebooks are said out loud, unknown suppression
//! codes are reported; and ruff's habits (`--fix --diff`, "Fixed N", relative diff headers,
//! configurable rule links, `cache list|clean`). Real binary, real files.

mod common;

use std::path::Path;

use common::{graphbreak, graphbreak_with_env, stderr, stdout, text, write};

/// Two model modules, a transform and a helper: `pkg.models.*` leaves out `heads.det.DetHead`
/// and `transforms.RandomFlip`.
fn library(dir: &Path) {
    write(dir, "pkg/__init__.py", "");
    write(dir, "pkg/models/__init__.py", "");
    write(dir, "pkg/models/heads/__init__.py", "");
    write(
        dir,
        "pkg/models/resnet.py",
        "import torch\n\nclass ResNet(torch.nn.Module):\n    def forward(self, x):\n        return x.relu()\n",
    );
    write(
        dir,
        "pkg/models/heads/det.py",
        "import torch\n\nclass DetHead(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n",
    );
    write(
        dir,
        "pkg/transforms.py",
        "import torch\n\nclass RandomFlip(torch.nn.Module):\n    def forward(self, x):\n        if torch.rand(1) < 0.5:\n            return x.flip(-1)\n        return x\n",
    );
}

#[test]
fn a_root_pattern_that_matches_nothing_fails_with_the_nearest_names() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    // A typo in the package name: exit 2, and the suggestion keeps the wildcard tail.
    let typo = graphbreak(dir.path(), &["scan", "--roots", "pkg.model.**", "."]);
    assert_eq!(typo.status.code(), Some(2), "{}", text(&typo));
    let message = stderr(&typo);
    assert!(
        message.contains("root pattern `pkg.model.**` matches no nn.Module class"),
        "{message}"
    );
    assert!(message.contains("`pkg.models.**`"), "{message}");
    assert!(stdout(&typo).is_empty(), "{}", text(&typo));
    // An exact name that is not there: the nearest class is suggested.
    let exact = graphbreak(
        dir.path(),
        &["scan", "--roots", "pkg.models.resnet.ResNt", "."],
    );
    assert_eq!(exact.status.code(), Some(2), "{}", text(&exact));
    assert!(
        stderr(&exact).contains("`pkg.models.resnet.ResNet`"),
        "{}",
        text(&exact)
    );
    // The same from the configuration.
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak]\nroots = [\"pkg.nothing.*\"]\n",
    );
    let configured = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(configured.status.code(), Some(2), "{}", text(&configured));
    assert!(
        stderr(&configured).contains("`pkg.nothing.*`"),
        "{}",
        text(&configured)
    );
    // A case factory the cases file does not define.
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak.check]\ncases = [\"cases.py::case_missing\"]\n",
    );
    write(
        dir.path(),
        "cases.py",
        "from pkg.models.resnet import ResNet\n\ndef case_net():\n    return ResNet(), ()\n",
    );
    let factory = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(factory.status.code(), Some(2), "{}", text(&factory));
    assert!(
        stderr(&factory).contains("case factory `case_missing`"),
        "{}",
        text(&factory)
    );
}

#[test]
fn the_summary_counts_forwards_the_roots_do_not_reach() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let narrowed = graphbreak(dir.path(), &["scan", "--roots", "pkg.models.*", "."]);
    assert_eq!(narrowed.status.code(), Some(0), "{}", text(&narrowed));
    assert!(
        stdout(&narrowed).contains(
            "All checks passed! (6 files scanned; 2 nn.Module forwards not reached from the roots, see --show-unreached)"
        ),
        "{}",
        text(&narrowed)
    );
    let listed = graphbreak(
        dir.path(),
        &["scan", "--roots", "pkg.models.*", "--show-unreached", "."],
    );
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed));
    assert_eq!(
        stdout(&listed),
        "pkg/models/heads/det.py:4: pkg.models.heads.det.DetHead.forward is not reached from the roots\n\
         pkg/transforms.py:4: pkg.transforms.RandomFlip.forward is not reached from the roots\n\
         2 nn.Module forwards not reached from the roots.\n"
    );
    // Roots that cover every model leave nothing out; without roots the count is not shown.
    let covered = graphbreak(dir.path(), &["scan", "--roots", "pkg.**", "."]);
    assert!(
        !stdout(&covered).contains("not reached"),
        "{}",
        text(&covered)
    );
    let default = graphbreak(dir.path(), &["scan", "."]);
    assert!(
        !stdout(&default).contains("not reached"),
        "{}",
        text(&default)
    );
}

/// Two projects scanned together: one configuration's roots narrow its own files only. The other,
/// which sets no roots, keeps the default (every nn.Module forward is a root), so its finding stays.
#[test]
fn one_configurations_roots_never_narrow_another_configurations_files() {
    let dir = tempfile::tempdir().unwrap();
    let module = |name: &str, body: &str| {
        format!(
            "import torch\n\n\nclass {name}(torch.nn.Module):\n    def forward(self, x):\n        return {body}\n"
        )
    };
    write(
        dir.path(),
        "a/pyproject.toml",
        "[tool.graphbreak]\nroots = [\"neta.Net\"]\n",
    );
    write(dir.path(), "a/neta.py", &module("Net", "x + 1"));
    write(dir.path(), "a/other.py", &module("Other", "x.item()"));
    write(dir.path(), "b/pyproject.toml", "[tool.graphbreak]\n");
    write(dir.path(), "b/modelb.py", &module("ModelB", "x.item()"));
    let alone = graphbreak(dir.path(), &["scan", "b"]);
    assert_eq!(alone.status.code(), Some(1), "{}", text(&alone));
    let together = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(together.status.code(), Some(1), "{}", text(&together));
    let out = stdout(&together);
    assert!(
        out.contains("b/modelb.py:6:16: SY002"),
        "{}",
        text(&together)
    );
    // a's own roots still narrow a: its unrooted module is counted, not reported.
    assert!(!out.contains("a/other.py"), "{}", text(&together));
    assert!(
        out.contains("1 nn.Module forward not reached from the roots"),
        "{}",
        text(&together)
    );
    // --roots on the command line governs every file.
    let cli = graphbreak(dir.path(), &["scan", "--roots", "neta.Net", "."]);
    assert_eq!(cli.status.code(), Some(0), "{}", text(&cli));
}

#[test]
fn zero_files_are_said_out_loud_and_notebooks_are_scanned_by_cell() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let named = graphbreak(dir.path(), &["scan", "empty"]);
    assert_eq!(named.status.code(), Some(2), "{}", text(&named));
    assert!(
        stderr(&named).contains("0 files scanned"),
        "{}",
        text(&named)
    );
    // A parent's ignore file (a virtual environment's `*`) hides a whole tree: say so.
    write(dir.path(), "venv/.gitignore", "*\n");
    write(dir.path(), "venv/lib/pkg/model.py", "import torch\n");
    let hidden = graphbreak(dir.path(), &["scan", "venv/lib"]);
    assert_eq!(hidden.status.code(), Some(2), "{}", text(&hidden));
    assert!(
        stderr(&hidden)
            .contains("1 Python file(s) under the given paths are skipped by .gitignore"),
        "{}",
        text(&hidden)
    );
    assert!(!stderr(&named).contains("skipped by"), "{}", text(&named));
    // With no path given (the current directory) it is a warning, not a failure.
    let implicit = graphbreak(&dir.path().join("empty"), &["scan"]);
    assert_eq!(implicit.status.code(), Some(0), "{}", text(&implicit));
    assert!(
        stderr(&implicit).contains("warning: no Python files"),
        "{}",
        text(&implicit)
    );

    // Notebooks are scanned as their code cells, findings placed as `cell N:row:col` (ruff's form).
    let notebook = r##"{"nbformat": 4, "cells": [
        {"cell_type": "markdown", "source": ["# A model\n"]},
        {"cell_type": "code", "source": ["import torch\n", "%matplotlib inline\n"]},
        {"cell_type": "code", "source": ["class Net(torch.nn.Module):\n", "    def forward(self, x):\n", "        return x.item()\n"]}
    ]}"##;
    write(dir.path(), "nb/analysis.ipynb", notebook);
    write(dir.path(), "nb/model.py", "x = 1\n");
    for args in [&["scan", "nb/analysis.ipynb"][..], &["scan", "nb"][..]] {
        let output = graphbreak(dir.path(), args);
        assert_eq!(output.status.code(), Some(1), "{}", text(&output));
        assert!(
            stdout(&output).contains("nb/analysis.ipynb:cell 2:3:16: SY002"),
            "{}",
            text(&output)
        );
    }
    let json = graphbreak(dir.path(), &["scan", "--output-format", "json", "nb"]);
    let items: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(items[0]["cell"].as_u64(), Some(2), "{items}");
    assert_eq!(items[0]["location"]["row"].as_u64(), Some(3), "{items}");
    // Every report format says which cell: rows within a cell are not the .ipynb file's lines.
    let sarif = graphbreak(dir.path(), &["scan", "--output-format", "sarif", "nb"]);
    let document: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let result = &document["runs"][0]["results"][0];
    assert_eq!(result["properties"]["cell"].as_u64(), Some(2), "{result}");
    let message = result["message"]["text"].as_str().unwrap_or_default();
    assert!(message.starts_with("cell 2: "), "{result}");
    let junit = graphbreak(dir.path(), &["scan", "--output-format", "junit", "nb"]);
    assert!(
        stdout(&junit).contains("nb/analysis.ipynb:cell 2:3:16: SY002"),
        "{}",
        text(&junit)
    );
    let github = graphbreak(dir.path(), &["scan", "--output-format", "github", "nb"]);
    assert!(
        stdout(&github).contains("::nb/analysis.ipynb:cell 2:3:16: SY002"),
        "{}",
        text(&github)
    );
    // A file that is not a notebook is said to be one that cannot be read, never a pass.
    write(dir.path(), "bad/broken.ipynb", "print('not json')\n");
    let broken = graphbreak(dir.path(), &["scan", "bad"]);
    assert_eq!(broken.status.code(), Some(1), "{}", text(&broken));
    assert!(
        stdout(&broken).contains("broken.ipynb:1:1: E002 not a notebook"),
        "{}",
        text(&broken)
    );
}

#[test]
fn unknown_suppression_codes_are_reported_and_graphbreaks_own_form_works() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "m.py",
        "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        a = x.item()  # noqa: SY02\n        b = x.item()  # graphbreak: ignore[BR005, SY002]\n        c = x.tolist()  # noqa: F401, E501\n        d = x.item()  # graphbreak: ignore[XYZ9]\n        return a + b + c + d\n",
    );
    let output = graphbreak(dir.path(), &["scan", "--select", "SY002,E004", "."]);
    let found: Vec<String> = stdout(&output)
        .lines()
        .filter(|l| l.starts_with("m.py:"))
        .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        found,
        [
            "m.py:5:13: SY002",
            "m.py:5:23: E004",
            "m.py:7:13: SY002",
            "m.py:8:13: SY002",
            "m.py:8:23: E004"
        ],
        "{}",
        text(&output)
    );
    // An unknown code is its own cause: never folded into the statement's finding.
    assert!(!stdout(&output).contains("also E004"), "{}", text(&output));
    // ...and alone where E004 is all that is selected.
    let alone = graphbreak(dir.path(), &["scan", "--select", "E004", "."]);
    let found: Vec<String> = stdout(&alone)
        .lines()
        .filter(|l| l.starts_with("m.py:"))
        .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        found,
        ["m.py:5:23: E004", "m.py:8:23: E004"],
        "{}",
        text(&alone)
    );
    let page = graphbreak(dir.path(), &["rule", "E004"]);
    assert!(
        stdout(&page).contains("graphbreak: ignore[SY002]"),
        "{}",
        text(&page)
    );
}

#[test]
fn fix_diff_shows_without_writing_and_fix_says_what_it_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let source = "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        s = torch.tensor([1.0]).to(x.device)\n        return x.item() * s\n";
    let path = write(dir.path(), "pkg/m.py", source);
    let shown = graphbreak(dir.path(), &["scan", "--fix", "--diff", "."]);
    assert_eq!(shown.status.code(), Some(1), "{}", text(&shown));
    assert!(
        stdout(&shown).starts_with("--- pkg/m.py\n+++ pkg/m.py\n"),
        "{}",
        text(&shown)
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        source,
        "--fix --diff must not write"
    );
    let fixed = graphbreak(dir.path(), &["scan", "--fix", "."]);
    assert_eq!(fixed.status.code(), Some(1), "{}", text(&fixed));
    assert!(
        stdout(&fixed).contains("Fixed 1 finding (1 remaining)."),
        "{}",
        text(&fixed)
    );
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("non_blocking=True")
    );
}

#[test]
fn rule_links_point_at_the_rule_docs_and_the_base_is_configurable() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "m.py",
        "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n",
    );
    let json = |dir: &Path| -> serde_json::Value {
        let output = graphbreak(dir, &["scan", "--output-format", "json", "."]);
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()[0].clone()
    };
    let default = json(dir.path());
    let url = default["url"].as_str().unwrap();
    assert_eq!(
        url,
        format!("rules/{}.md", default["code"].as_str().unwrap())
    );
    // That relative link resolves in this repository.
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(url).is_file(),
        "{url}"
    );
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak]\nrule-url-base = \"https://example.org/graphbreak/rules/\"\n",
    );
    let configured = json(dir.path());
    assert_eq!(
        configured["url"].as_str().unwrap(),
        format!(
            "https://example.org/graphbreak/rules/{}.md",
            configured["code"].as_str().unwrap()
        )
    );
    let sarif = graphbreak(dir.path(), &["scan", "--output-format", "sarif", "."]);
    let sarif: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let help = sarif["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"]
        .as_str()
        .unwrap();
    assert!(
        help.starts_with("https://example.org/graphbreak/rules/"),
        "{help}"
    );
}

#[test]
fn cache_list_shows_sizes_and_clean_removes_only_what_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("xdg");
    write(
        &cache,
        "graphbreak/venvs/torch-2.5/bin/python",
        &"x".repeat(2048),
    );
    write(&cache, "graphbreak/torch-2.11.0/inductor/a", "abc");
    write(
        &cache,
        "graphbreak/harness-0123456789abcdef/graphbreak_harness/run.py",
        "print()\n",
    );
    write(&cache, "graphbreak/not-ours.txt", "keep");
    let run = |args: &[&str]| graphbreak_with_env(dir.path(), &[("XDG_CACHE_HOME", &cache)], args);
    let list = run(&["cache", "list"]);
    assert_eq!(list.status.code(), Some(0), "{}", text(&list));
    let listing = stdout(&list);
    assert!(listing.contains("2.0 KiB  venv"), "{listing}");
    assert!(listing.contains("compile cache"), "{listing}");
    assert!(listing.contains("harness"), "{listing}");
    assert!(!listing.contains("not-ours"), "{listing}");
    let clean = run(&["cache", "clean", "venvs"]);
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean));
    assert!(
        stdout(&clean).contains("Removed 1 entry (2.0 KiB freed)."),
        "{}",
        text(&clean)
    );
    assert!(!cache.join("graphbreak/venvs/torch-2.5").exists());
    assert!(cache.join("graphbreak/torch-2.11.0").exists());
    let all = run(&["cache", "clean"]);
    assert_eq!(all.status.code(), Some(0), "{}", text(&all));
    assert!(!cache.join("graphbreak/torch-2.11.0").exists());
    assert!(cache.join("graphbreak/not-ours.txt").exists());
}

/// `graphbreak init`'s template case builds no model until the user fills it in: check cases that
/// build no nn.Module of the scanned files root nothing, so every forward is a root (as with no
/// roots) rather than every file passing. Once a case builds a model, only what it reaches counts.
#[test]
fn check_cases_that_build_no_model_do_not_silence_the_scan() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    write(
        dir.path(),
        "pyproject.toml",
        "[project]\nname = \"pkg\"\n\n[tool.graphbreak.check]\ncases = [\"compile_cases.py\"]\n",
    );
    write(
        dir.path(),
        "compile_cases.py",
        "import torch\n\ndef case_model():\n    raise NotImplementedError(\"fill in\")\n",
    );
    let template = graphbreak(dir.path(), &["scan", "--show-roots", "."]);
    assert!(
        stdout(&template).contains("the check cases build no nn.Module of the scanned files"),
        "{}",
        text(&template)
    );
    let template = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(template.status.code(), Some(1), "{}", text(&template));
    assert!(
        stdout(&template).contains("pkg/transforms.py"),
        "{}",
        text(&template)
    );
    // A case that builds ResNet roots ResNet alone: RandomFlip's branch is not reached.
    write(
        dir.path(),
        "compile_cases.py",
        "import torch\nfrom pkg.models.resnet import ResNet\n\ndef case_model():\n    return ResNet(), (torch.randn(2, 3),)\n",
    );
    let real = graphbreak(dir.path(), &["scan", "."]);
    assert!(
        !stdout(&real).contains("pkg/transforms.py"),
        "{}",
        text(&real)
    );
}
