//! `graphbreak scan` end to end: snapshots of each rule's corpus output, the JSON shape, config,
//! suppression, fixes, and the rule docs being generated from one source.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

use common::{graphbreak, stderr, stdout, write};

/// Each rule's corpus output, one snapshot per rule (`snapshot_<code>`), for every rule the binary
/// lists: a new rule needs no line here, only its accepted snapshot.
#[test]
fn every_rule_corpus_output_matches_its_snapshot() {
    let listing = graphbreak(&root(), &["rules"]);
    let codes: Vec<String> = stdout(&listing)
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next())
        .filter(|code| !code.starts_with('E'))
        .map(str::to_owned)
        .collect();
    assert!(codes.len() >= 10, "rules listing: {codes:?}");
    for code in codes {
        let output = graphbreak(&root(), &["scan", &format!("corpus/rules/{code}")]);
        insta::assert_snapshot!(format!("snapshot_{}", code.to_lowercase()), stdout(&output));
    }
}

#[test]
fn json_output_has_ruffs_shape() {
    let output = graphbreak(
        &root(),
        &[
            "scan",
            "--output-format",
            "json",
            "corpus/rules/CF001/positive.py",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let items: Vec<serde_json::Value> = serde_json::from_str(&stdout(&output)).unwrap();
    assert!(!items.is_empty());
    for item in &items {
        for key in [
            "code",
            "message",
            "filename",
            "location",
            "end_location",
            "fix",
            "url",
            "noqa_row",
        ] {
            assert!(item.get(key).is_some(), "missing {key} in {item}");
        }
        assert!(Path::new(item["filename"].as_str().unwrap()).is_absolute());
        assert!(item["location"]["row"].as_u64().unwrap() >= 1);
        assert!(item["location"]["column"].as_u64().unwrap() >= 1);
    }
    let fixed = items
        .iter()
        .find(|i| !i["fix"].is_null())
        .expect("CF001 assignment carries a fix");
    assert_eq!(fixed["fix"]["edits"][0]["content"], "False");
}

#[test]
fn clean_tree_exits_zero_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "model.py",
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.relu()\n",
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(stdout(&output).contains("All checks passed"));
}

#[test]
fn code_outside_compiled_regions_is_quiet() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "train.py",
        r#"import torch

def train(model, loader, opt):
    for x, y in loader:
        loss = model(x).sum()
        if loss.item() > 10:          # training loop: eager, not traced
            print(float(loss))
        if torch.isnan(loss).any():
            break
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
"#,
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn regions_follow_calls_across_files_and_aliases() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pkg/__init__.py",
        "from .ops import normalize\n",
    );
    write(
        dir.path(),
        "pkg/ops.py",
        "import torch\n\ndef normalize(x):\n    return x / x.sum().item()\n\ndef unused(x):\n    return x.sum().item()\n",
    );
    write(
        dir.path(),
        "pkg/base.py",
        "import torch.nn as nn\n\nclass Base(nn.Module):\n    pass\n",
    );
    write(
        dir.path(),
        "pkg/model.py",
        "from pkg import normalize\nfrom .base import Base as B\n\nclass Model(B):\n    def forward(self, x):\n        return self.head(normalize(x))\n\n    def head(self, x):\n        return x.tolist()\n",
    );
    let output = graphbreak(dir.path(), &["scan", "--output-format", "json", "."]);
    let items: Vec<serde_json::Value> = serde_json::from_str(&stdout(&output)).unwrap();
    let mut found: Vec<(String, u64)> = items
        .iter()
        .map(|i| {
            let file = Path::new(i["filename"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (file, i["location"]["row"].as_u64().unwrap())
        })
        .collect();
    found.sort();
    // normalize() via the package re-export, head() via self, but not unused().
    assert_eq!(
        found,
        vec![("model.py".to_owned(), 9), ("ops.py".to_owned(), 4)],
        "{items:#?}"
    );
}

#[test]
fn project_helper_predicates_guard_eager_only_code() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "utils.py",
        "import torch\n\ndef _compiling():\n    return torch.compiler.is_compiling()\n\ndef is_compiling():\n    return _compiling()\n",
    );
    write(
        dir.path(),
        "model.py",
        r#"import torch
from utils import is_compiling

class M(torch.nn.Module):
    def forward(self, x):
        if not is_compiling():
            print(x.sum().item())
        if is_compiling():
            return x
        return x.tolist()
"#,
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn torch_floor_comes_from_project_dependencies_and_cli_overrides_it() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pyproject.toml",
        "[project]\nname = \"x\"\ndependencies = [\"numpy\", \"torch>=2.2.0,<3\"]\n",
    );
    write(
        dir.path(),
        "m.py",
        "import torch\n\ndef f():\n    return torch.compiler.is_compiling()\n",
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("VR001"), "{}", stdout(&output));
    assert!(stdout(&output).contains("torch 2.2"), "{}", stdout(&output));
    let output = graphbreak(dir.path(), &["scan", "--torch-version", "2.4", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn bad_configuration_is_an_error_naming_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak]\nselct = [\"SY\"]\n",
    );
    write(dir.path(), "m.py", "x = 1\n");
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("pyproject.toml") && err.contains("selct"),
        "{err}"
    );

    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak]\nselect = [\"XX9\"]\n",
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("XX9"));

    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak]\ntorch-version = \"two\"\n",
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("torch-version"));
}

#[test]
fn select_ignore_per_file_ignores_and_noqa() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak]\nper-file-ignores = { \"legacy/*\" = [\"SY\"] }\n",
    );
    let model = "import torch\n\n@torch.compile\ndef f(x):\n    a = x.item()\n    b = x.item()  # noqa: SY002\n    c = x.item()  # noqa\n    d = x.item()  # noqa: CR001\n    return a, b, c, d\n";
    write(dir.path(), "model.py", model);
    write(dir.path(), "legacy/old.py", model);
    let output = graphbreak(dir.path(), &["scan", "."]);
    let text = stdout(&output);
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("SY002")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[0].starts_with("model.py:5:") && rows[1].starts_with("model.py:8:"),
        "{text}"
    );
    let output = graphbreak(dir.path(), &["scan", "--ignore", "SY002", "."]);
    assert_eq!(output.status.code(), Some(0));
    let output = graphbreak(dir.path(), &["scan", "--select", "CR", "."]);
    assert_eq!(output.status.code(), Some(0));
    let output = graphbreak(dir.path(), &["scan", "--select", "NOPE1", "."]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn diff_shows_and_fix_applies_the_fixes() {
    let dir = tempfile::tempdir().unwrap();
    let source = "import torch\nimport torch._dynamo\n\ntorch._dynamo.config.suppress_errors = True\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        s = torch.tensor([1.0, 2.0]).to(x.device)\n        t = torch.tensor([3.0]).to(\n            x.device  # the input's device\n        )\n        return x * s.sum() * t\n";
    let path = write(dir.path(), "m.py", source);
    let output = graphbreak(dir.path(), &["scan", "--diff", "."]);
    let diff = stdout(&output);
    assert!(
        diff.contains("-torch._dynamo.config.suppress_errors = True"),
        "{diff}"
    );
    assert!(
        diff.contains("+torch._dynamo.config.suppress_errors = False"),
        "{diff}"
    );
    assert!(diff.contains(".to(x.device, non_blocking=True)"), "{diff}");
    // Inserted after the last argument, not into the trailing comment.
    assert!(
        diff.contains("+            x.device, non_blocking=True  # the input's device"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        source,
        "--diff must not write"
    );

    let output = graphbreak(dir.path(), &["scan", "--fix", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "after --fix: {}",
        stdout(&output)
    );
}

#[test]
fn rule_docs_in_rules_dir_are_generated_from_the_declarations() {
    let dir = tempfile::tempdir().unwrap();
    let output = graphbreak(&root(), &["generate-docs", dir.path().to_str().unwrap()]);
    assert!(output.status.success());
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let generated = entry.unwrap().path();
        let committed = root().join("rules").join(generated.file_name().unwrap());
        assert_eq!(
            std::fs::read_to_string(&committed).unwrap_or_default(),
            std::fs::read_to_string(&generated).unwrap(),
            "{} is stale: run `cargo run -- generate-docs rules`",
            committed.display()
        );
    }
    let output = graphbreak(&root(), &["rule", "CR001"]);
    assert!(stdout(&output).contains("## Why is this bad?"));
    let output = graphbreak(&root(), &["rule", "ZZ999"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn named_files_are_analyzed_within_their_project_like_a_pre_commit_hook() {
    // pre-commit passes only the changed file; whether its helper is traced depends on a forward()
    // in a file that did not change.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pyproject.toml", "[project]\nname = \"p\"\n");
    write(dir.path(), "pkg/__init__.py", "");
    write(
        dir.path(),
        "pkg/ops.py",
        "def scale(x):\n    return x * x.max().item()\n",
    );
    write(
        dir.path(),
        "pkg/model.py",
        "import torch\nfrom pkg.ops import scale\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return scale(x).tolist()\n",
    );
    write(
        dir.path(),
        "broken/pyproject.toml",
        "[tool.graphbreak]\nselct = 1\n",
    );
    write(dir.path(), "broken/x.py", "x = 1\n");
    let output = graphbreak(dir.path(), &["scan", "pkg/ops.py"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}{}", stderr(&output));
    assert!(text.starts_with("pkg/ops.py:2:"), "{text}");
    assert!(
        !text.contains("model.py"),
        "only the named file is reported: {text}"
    );
    assert!(text.contains("in 1 file scanned"), "{text}");
}

#[test]
fn import_resolution_does_not_depend_on_the_order_of_scan_roots() {
    // Two scripts directories each with their own `utils.py`; `b/train.py` imports its neighbour.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a/utils.py",
        "def process(x):\n    return x.item()\n",
    );
    write(dir.path(), "b/utils.py", "def process(x):\n    return x\n");
    write(
        dir.path(),
        "b/train.py",
        "import torch\nfrom utils import process\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return process(x)\n",
    );
    let b = dir.path().join("b");
    for args in [["scan", ".", "../a"], ["scan", "../a", "."]] {
        let output = graphbreak(&b, &args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stdout(&output)
        );
    }
}

#[test]
fn self_referential_locals_are_followed_one_hop_only() {
    // `h = h + h` rebinds a local from itself: following local values recursively is exponential
    // (this took minutes on transformers before the one-hop rule). It must finish promptly.
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::new();
    for _ in 0..40 {
        body.push_str(
            "        h = h + h * h\n        sizes = sizes[1:]\n        c = c or c and h\n",
        );
    }
    let source = format!(
        "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, h, sizes, c):\n{body}        if c:\n            return torch.stack([sizes])\n        return h\n"
    );
    write(dir.path(), "m.py", &source);
    let run = common::run_bounded(
        Command::new(env!("CARGO_BIN_EXE_graphbreak"))
            .current_dir(dir.path())
            .args(["scan", "."]),
        std::time::Duration::from_secs(20),
    );
    assert!(
        !run.timed_out,
        "scan still running after 20 s: exponential local-value following"
    );
    assert!(matches!(run.status.code(), Some(0 | 1)), "{:?}", run.status);
}

#[test]
fn exit_zero_keeps_findings_but_not_the_status() {
    let output = graphbreak(&root(), &["scan", "--exit-zero", "corpus/rules/CF001"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("CF001"));
    let output = graphbreak(
        &root(),
        &["scan", "--exit-zero", "--select", "NOPE9", "corpus"],
    );
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn sarif_output_lists_rules_and_located_results() {
    let output = graphbreak(
        &root(),
        &["scan", "--output-format", "sarif", "corpus/rules/SY002"],
    );
    assert_eq!(output.status.code(), Some(1));
    let document: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(document["version"], "2.1.0");
    let run = &document["runs"][0];
    let rule_ids: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for result in results {
        assert!(rule_ids.contains(&result["ruleId"].as_str().unwrap()));
        let region = &result["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().unwrap() >= 1);
        let uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(uri.starts_with("corpus/rules/SY002/"), "{uri}");
    }
}

#[test]
fn readme_rule_table_matches_the_generated_index() {
    let index = std::fs::read_to_string(root().join("rules/README.md")).unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut rows = 0;
    for row in index.lines().filter(|l| l.starts_with("| [")) {
        let code = &row[3..8];
        let expected = row.replacen(&format!("({code}.md)"), &format!("(rules/{code}.md)"), 1);
        if code.starts_with('E') {
            continue; // the meta rules share one README row
        }
        assert!(
            readme.contains(&expected),
            "README.md lacks or differs from:\n{expected}"
        );
        rows += 1;
    }
    assert!(rows >= 10, "only {rows} rule rows checked");
}

/// A small library: models users compile, transforms and an export wrapper they don't.
fn library_with_models_and_transforms(dir: &Path) {
    write(dir, "pkg/__init__.py", "");
    write(dir, "pkg/models/__init__.py", "");
    write(dir, "pkg/models/heads/__init__.py", "");
    write(
        dir,
        "pkg/models/resnet.py",
        "import torch\nfrom pkg.utils import pick\n\nclass ResNet(torch.nn.Module):\n    def forward(self, x):\n        return pick(x)\n",
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
    write(
        dir,
        "pkg/utils.py",
        "def pick(x):\n    return x.tolist()\n\ndef standalone(x):\n    return x.item()\n",
    );
}

fn finding_files(output: &Output) -> Vec<String> {
    let mut files: Vec<String> = stdout(output)
        .lines()
        .filter(|l| l.contains(": BR") || l.contains(": SY"))
        .map(|l| l.split(':').next().unwrap().to_owned())
        .collect();
    files.dedup();
    files
}

#[test]
fn roots_limit_findings_to_what_they_reach() {
    let dir = tempfile::tempdir().unwrap();
    library_with_models_and_transforms(dir.path());
    // Without roots every forward counts, transforms included.
    let all = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(
        finding_files(&all),
        [
            "pkg/models/heads/det.py",
            "pkg/transforms.py",
            "pkg/utils.py"
        ],
        "{}",
        stdout(&all)
    );
    // `*` stays within one segment: `pkg.models.*` matches the module pkg.models.resnet (its
    // Modules) but not pkg.models.heads.det; `**` spans segments.
    let one = graphbreak(dir.path(), &["scan", "--roots", "pkg.models.*", "."]);
    assert_eq!(finding_files(&one), ["pkg/utils.py"], "{}", stdout(&one));
    let deep = graphbreak(dir.path(), &["scan", "--roots", "pkg.models.**", "."]);
    assert_eq!(
        finding_files(&deep),
        ["pkg/models/heads/det.py", "pkg/utils.py"],
        "{}",
        stdout(&deep)
    );
    // A class pattern and a function pattern.
    let class = graphbreak(
        dir.path(),
        &["scan", "--roots", "pkg.models.heads.det.DetHead", "."],
    );
    assert_eq!(finding_files(&class), ["pkg/models/heads/det.py"]);
    let func = graphbreak(
        dir.path(),
        &["scan", "--roots", "pkg.utils.standalone", "."],
    );
    let text = stdout(&func);
    assert!(text.contains("pkg/utils.py:5:"), "{text}");
    assert!(!text.contains("pkg/utils.py:2:"), "{text}");
    // The same from [tool.graphbreak] roots.
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak]\nroots = [\"pkg.models.**\"]\n",
    );
    let configured = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(
        finding_files(&configured),
        ["pkg/models/heads/det.py", "pkg/utils.py"]
    );
}

#[test]
fn show_roots_lists_each_root_and_what_it_reaches() {
    let dir = tempfile::tempdir().unwrap();
    library_with_models_and_transforms(dir.path());
    let output = graphbreak(
        dir.path(),
        &["scan", "--show-roots", "--roots", "pkg.models.*", "."],
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "pkg/models/resnet.py:5: pkg.models.resnet.ResNet.forward reaches 2 functions (--roots pkg.models.*)\n1 compile root.\n"
    );
}

#[test]
fn torch_compile_targets_are_roots_found_by_themselves() {
    let dir = tempfile::tempdir().unwrap();
    // `Net` derives from a base graphbreak cannot see; it is compiled through `self.net`.
    write(
        dir.path(),
        "app.py",
        r#"import torch
from somewhere import Base

class Net(Base):
    def forward(self, x):
        return x.item()

class Other(Base):
    def forward(self, x):
        return x.item()

class Trainer:
    def __init__(self):
        self.net = Net()
        self.compiled = torch.compile(self.net)

def main():
    model = Other()
    model.compile()
"#,
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    let text = stdout(&output);
    assert!(text.contains("app.py:6:"), "{text}");
    assert!(text.contains("app.py:10:"), "{text}");
    // Roots configured elsewhere: the project's own compile targets still count.
    write(
        dir.path(),
        "other.py",
        "import torch\n\nclass Extra(torch.nn.Module):\n    def forward(self, x):\n        return x\n",
    );
    let rooted = graphbreak(dir.path(), &["scan", "--roots", "other.Extra", "."]);
    let text = stdout(&rooted);
    assert!(
        text.contains("app.py:6:") && text.contains("app.py:10:"),
        "{text}"
    );
    let roots = graphbreak(dir.path(), &["scan", "--show-roots", "."]);
    let text = stdout(&roots);
    assert!(
        text.contains(
            "app.Net.forward reaches 1 function (torch.compile(...) in app (via self attribute))"
        ),
        "{text}"
    );
    assert!(
        text.contains("app.Other.forward reaches 1 function (.compile() in app)"),
        "{text}"
    );
}

#[test]
fn check_case_factories_are_roots() {
    let dir = tempfile::tempdir().unwrap();
    library_with_models_and_transforms(dir.path());
    write(
        dir.path(),
        "tools/cases.py",
        "from pkg.models.heads.det import DetHead\n\ndef build():\n    return DetHead()\n\ndef case_det():\n    return {\"model\": build()}\n",
    );
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak.check]\ncases = [\"tools/cases.py\"]\n",
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(
        finding_files(&output),
        ["pkg/models/heads/det.py"],
        "{}",
        stdout(&output)
    );
    let roots = graphbreak(dir.path(), &["scan", "--show-roots", "."]);
    assert!(
        stdout(&roots).contains("DetHead.forward reaches 1 function (check case cases::case_det)"),
        "{}",
        stdout(&roots)
    );
}

#[test]
fn a_bad_root_pattern_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.py", "x = 1\n");
    let output = graphbreak(dir.path(), &["scan", "--roots", "pkg/models", "."]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("root pattern `pkg/models`"),
        "{}",
        stderr(&output)
    );
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak]\nroots = [\"a.[\"]\n",
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("pyproject.toml"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn roots_reach_submodules_but_not_helpers_or_dead_subclasses() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib/__init__.py", "");
    write(
        dir.path(),
        "lib/models.py",
        r#"import torch
from torch import nn


class Block(nn.Module):
    def forward(self, x):
        return x * x.max().item()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(2)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)

    def head(self, x):
        return x


class GeneratedNet(Net):
    # Like transformers' modular_*.py sources: a subclass nobody builds.
    def head(self, x):
        return x.tolist()


def make_net():
    return x_helper(Net())


def x_helper(net):
    return net.sum().item()
"#,
    );
    let output = graphbreak(dir.path(), &["scan", "--roots", "lib.models.Net", "."]);
    let text = stdout(&output);
    // Block.forward runs when Net calls its submodules: reached.
    assert!(text.contains("lib/models.py:7:"), "{text}");
    // GeneratedNet is never instantiated: its override of `head` is not `self.head` here.
    assert!(!text.contains("lib/models.py:27:"), "{text}");
    // Without roots every forward counts, and the override may be `self.head` of some instance.
    let all = stdout(&graphbreak(dir.path(), &["scan", "."]));
    assert!(all.contains("lib/models.py:27:"), "{all}");
    // A wildcard pattern roots models, not module-level helpers such as make_net / x_helper.
    let wild = stdout(&graphbreak(dir.path(), &["scan", "--roots", "lib.*", "."]));
    assert!(!wild.contains("lib/models.py:35:"), "{wild}");
    // ... an exact name does.
    let exact = stdout(&graphbreak(
        dir.path(),
        &["scan", "--roots", "lib.models.x_helper", "."],
    ));
    assert!(exact.contains("lib/models.py:35:"), "{exact}");
}

#[test]
fn with_roots_flags_left_at_their_default_are_false() {
    // corpus/roots/profiled.py: `profile=False` / `augment=False` that no traced call sets.
    let root_dir = root().join("corpus/roots");
    let quiet = graphbreak(
        &root_dir,
        &["scan", "--roots", "profiled.ProfiledNet", "profiled.py"],
    );
    assert_eq!(quiet.status.code(), Some(0), "{}", stdout(&quiet));
    // A root whose call sets `augment=True` reaches the augmented read.
    let reached = graphbreak(
        &root_dir,
        &["scan", "--roots", "profiled.Augmented", "profiled.py"],
    );
    let source = std::fs::read_to_string(root_dir.join("profiled.py")).unwrap();
    let row_of = |needle: &str| source.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let text = stdout(&reached);
    let augmented = format!("profiled.py:{}:", row_of("* x.max().item()"));
    let profiled = format!("profiled.py:{}:", row_of("print(x.sum().item())"));
    let cache_data = format!(
        "profiled.py:{}:",
        row_of("self.windows.append(window.item())")
    );
    assert!(text.contains(&augmented), "{text}");
    // `LayerCache([x.max()])` passes `cache_data`: its `is not None` branch is traced there.
    assert!(text.contains(&cache_data), "{text}");
    // `restore_rows(x, <tensor>)` takes the tensor branch there.
    let tensor_rows = format!("profiled.py:{}:", row_of("rows = int(shape[0])"));
    assert!(text.contains(&tensor_rows), "{text}");
    assert!(!text.contains(&profiled), "{text}");
}

#[test]
fn with_roots_caller_context_decides_callee_branches() {
    // corpus/roots/context.py: every traced call passes `pool_type="avg"` and `child=False`, and
    // calls `self.unmerge()` only under `if self.merged:`; the other branches are not traced.
    // Constants passed along a chain of calls unchanged (`duplicate=False`, `on_zero="zero"`)
    // decide the branches at its end the same way; so does a shape dimension (`x.shape[-1]`),
    // an int that is never `None` and is taken as non-zero, for a conditional expression, and a
    // tuple built at the call (`size=(n, m)`), never `None`.
    let root_dir = root().join("corpus/roots");
    let quiet = graphbreak(
        &root_dir,
        &["scan", "--roots", "context.ContextNet", "context.py"],
    );
    assert_eq!(quiet.status.code(), Some(0), "{}", stdout(&quiet));
    // Where the calls pass other constants (and no guard), the same branches are reported.
    let loose = graphbreak(
        &root_dir,
        &["scan", "--roots", "context.LooseNet", "context.py"],
    );
    let source = std::fs::read_to_string(root_dir.join("context.py")).unwrap();
    let row_of = |needle: &str| source.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let text = stdout(&loose);
    for needle in [
        "warnings.warn(\"Already unmerged\")",
        "print(f\"unknown pool type",
        "return x + x.sum().item()",
        "return x + x.max().item()",
        // Constants forwarded along a chain of calls decide the branch at its end.
        "return copy.deepcopy(x.detach()) if duplicate else x",
        "if on_zero == \"warn\" and torch.any(x == 0):",
        // Without a dimension passed, the conditional expression reads the tensor.
        "width = int(x.sum().item()) if not length else length",
        // Without a tuple passed, `size is None` holds and the branch reads the tensor.
        "size = (x.shape[0], int(x.abs().max().item()) + 1)",
    ] {
        assert!(
            text.contains(&format!("context.py:{}:", row_of(needle))),
            "{needle}: {text}"
        );
    }
}

#[test]
fn one_statement_gets_one_finding_naming_the_other_codes() {
    // `.nonzero()` (BR003) and `.tolist()` (SY002) on one statement: one finding, the break
    // first; a noqa for either code suppresses it (`src/scan/merge.rs`).
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "picker.py",
        "import torch\nfrom torch import nn\n\n\nclass Picker(nn.Module):\n    def forward(self, x):\n        rows = (x > 0).nonzero().tolist()\n        kept = (x > 1).nonzero().tolist()  # noqa: SY002\n        return x + len(rows) + len(kept)\n",
    );
    let output = graphbreak(dir.path(), &["scan", "--output-format", "json", "."]);
    let items: Vec<serde_json::Value> = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(items.len(), 1, "{items:#?}");
    assert_eq!(items[0]["code"], "BR003");
    assert_eq!(items[0]["location"]["row"], 7);
    assert_eq!(items[0]["also"], serde_json::json!(["SY002"]));
    let message = items[0]["message"].as_str().unwrap();
    assert!(message.contains("also SY002"), "{message}");
    // Selecting one of the codes reports it alone, unmerged.
    let sync = graphbreak(dir.path(), &["scan", "--select", "SY002", "."]);
    let text = stdout(&sync);
    assert!(
        text.contains("picker.py:7:") && !text.contains("also"),
        "{text}"
    );
}

#[test]
fn readme_names_every_command_of_the_help_and_its_links_resolve() {
    let help = stdout(&graphbreak(&root(), &["--help"]));
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 6, "{help}");
    for command in commands {
        assert!(
            readme.contains(&format!("`graphbreak {command}")),
            "README.md does not show `graphbreak {command}`"
        );
    }
    assert!(
        readme.lines().count() <= 250,
        "the README is a door, not the manual"
    );
    // Every relative link of the README and the docs it leads to names a file that exists.
    let mut pages = vec![root().join("README.md")];
    for dir in ["docs", "docs/measurements"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        for (_, rest) in text.match_indices("](").map(|(i, _)| ((), &text[i + 2..])) {
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap();
            if target.is_empty() || target.contains("://") || target.contains(' ') {
                continue;
            }
            let resolved = page.parent().unwrap().join(target);
            assert!(
                resolved.exists(),
                "{}: link `{target}` names nothing",
                page.display()
            );
        }
    }
}

#[test]
fn self_referencing_guard_locals_terminate() {
    // `flag = bool(flag)` and `f = f or f ...` once recursed without bound through the guard
    // formula and the predicate evaluator (`model/eval.rs` follows a local one hop only).
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "selfref.py",
        "import torch\nfrom torch import nn\n\n\nclass Loop(nn.Module):\n    def forward(self, x, flag=None):\n        flag = bool(flag)\n        flag = bool(flag)\n        if flag:\n            x = x + 1\n        f = getattr(torch.compiler, \"is_compiling\", None)\n        f = f or f or f or f or f or f or f or f\n        f = f or f or f or f or f or f or f or f\n        if f is not None and f():\n            x = x * 2\n        return x\n",
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn a_local_last_assigned_none_in_one_branch_is_not_known_none() {
    // `idx = []` on one branch, `idx = None` on the other: after them `idx is None` is unknown
    // (the evaluator follows a local only to a predicate reference), so the read below stays.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "branches.py",
        "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def forward(self, x, targets=None):\n        if self.training:\n            idx = []\n        else:\n            idx = None\n        if self.training:\n            if targets is None or idx is None:\n                raise ValueError(\"no idx\")\n            return x * x.sum().item()\n        return x\n",
    );
    let output = graphbreak(dir.path(), &["scan", "--roots", "branches.Net", "."]);
    assert!(
        stdout(&output).contains("branches.py:14:"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn torch_compile_called_without_a_model_roots_what_its_decorator_is_applied_to() {
    let dir = tempfile::tempdir().unwrap();
    // `torch.compile(backend=...)` returns a decorator; `(fn)` compiles `fn`. `other` is never
    // compiled: its break is not reported.
    write(
        dir.path(),
        "app.py",
        "import torch\n\ndef fn(x):\n    torch._dynamo.graph_break()\n    return x + 1\n\ndef other(x):\n    torch._dynamo.graph_break()\n    return x\n\nopt_fn = torch.compile(backend=\"eager\")(fn)\n",
    );
    let output = graphbreak(dir.path(), &["scan", "."]);
    let text = stdout(&output);
    assert!(text.contains("app.py:4:"), "{text}");
    assert!(!text.contains("app.py:8:"), "{text}");
}
