//! `graphbreak init` on real project layouts: the configuration it writes is accepted by `scan`,
//! carries the torch floor and the project's compile roots, never overwrites, and the
//! `compile_cases.py` it writes runs under `graphbreak check` with real torch.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{graphbreak, text, write};

const PYPROJECT: &str = "[project]\nname = \"demo\"\nversion = \"0.1\"\ndependencies = [\"numpy\", \"torch>=2.3\"]\n\n[tool.ruff]\nline-length = 100\n";

fn project_with_compile_calls() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    write(&root, "pyproject.toml", PYPROJECT);
    write(&root, "pkg/__init__.py", "");
    write(
        &root,
        "pkg/models.py",
        "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x.relu()\n\n\nclass Head(nn.Module):\n    def forward(self, x):\n        return x\n\n\n@torch.compile(dynamic=False)\ndef step(x):\n    return x * 2\n\n\nclass Unused(nn.Module):\n    pass\n",
    );
    write(
        &root,
        "pkg/train.py",
        "import re\nimport torch\nfrom . import models\nfrom .models import Head\n\n\nclass Trainer:\n    def __init__(self):\n        self.head = Head()\n\n    def setup(self):\n        self.compiled = torch.compile(self.head)\n\n\ndef main():\n    model = models.Net()\n    model = torch.compile(model, mode=\"max-autotune\")\n    pattern = re.compile(\"x\")\n    other = torch.compile(torch.nn.Linear(2, 2))\n",
    );
    (dir, root)
}

#[test]
fn init_appends_tool_graphbreak_with_floor_and_roots_and_never_clobbers() {
    let (_guard, root) = project_with_compile_calls();
    let output = graphbreak(&root, &["init"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let pyproject = std::fs::read_to_string(root.join("pyproject.toml")).unwrap();
    // The user's file is kept byte for byte; the section is appended.
    assert!(pyproject.starts_with(PYPROJECT), "{pyproject}");
    let table: toml::Table = pyproject.parse().expect("still valid TOML");
    let settings = &table["tool"]["graphbreak"];
    assert_eq!(settings["select"].as_array().unwrap().len(), 1);
    // The floor comes from [project].dependencies, which scan reads itself: shown, not repeated.
    assert!(settings.get("torch-version").is_none());
    assert!(
        pyproject.contains("# torch-version = \"2.3\""),
        "{pyproject}"
    );
    // Roots: every Module of the package its compile targets live in (a new model module is
    // covered too); the targets themselves — project classes and functions, resolved through
    // imports, nothing from torch or the standard library — are listed beside it.
    assert!(pyproject.contains("roots = [\"pkg.**\"]"), "{pyproject}");
    for target in [
        "pkg.models.Head  (pkg/train.py:12)",
        "pkg.models.Net  (pkg/train.py:17)",
        "pkg.models.step  (pkg/models.py:15)",
    ] {
        assert!(pyproject.contains(target), "{target}: {pyproject}");
    }
    assert!(!pyproject.contains("torch.nn.Linear"), "{pyproject}");
    // Next steps are printed.
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("Next steps:"), "{said}");
    assert!(
        said.contains("graphbreak check --output-format html"),
        "{said}"
    );
    assert_eq!(
        table["tool"]["graphbreak"]["check"]["cases"]
            .as_array()
            .unwrap()[0]
            .as_str(),
        Some("compile_cases.py")
    );
    assert!(root.join("compile_cases.py").is_file());

    // The written configuration is accepted by scan (exit 0 = no findings, not 2 = bad config),
    // and its roots leave no model of the package out.
    let scan = graphbreak(&root, &["scan"]);
    assert_eq!(scan.status.code(), Some(0), "{}", text(&scan));
    assert!(
        !String::from_utf8_lossy(&scan.stdout).contains("not reached"),
        "{}",
        text(&scan)
    );

    // A second init changes nothing and says so.
    std::fs::write(root.join("compile_cases.py"), "# mine\n").unwrap();
    let again = graphbreak(&root, &["init"]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already has [tool.graphbreak]"));
    assert_eq!(
        std::fs::read_to_string(root.join("pyproject.toml")).unwrap(),
        pyproject
    );
    assert_eq!(
        std::fs::read_to_string(root.join("compile_cases.py")).unwrap(),
        "# mine\n"
    );
}

#[test]
fn init_without_pyproject_writes_graphbreak_toml_with_the_requirements_floor() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "requirements.txt",
        "numpy>=1.26\ntorch==2.4.1  # pinned for CUDA 12.1\n",
    );
    write(
        root,
        "app.py",
        "import torch\n\n\n@torch.compile\ndef f(x):\n    torch.compiler.set_stance(\"force_eager\")\n    return x\n",
    );
    let printed = graphbreak(root, &["init", "--print"]);
    assert_eq!(printed.status.code(), Some(0), "{}", text(&printed));
    assert!(
        !root.join("graphbreak.toml").exists(),
        "--print writes nothing"
    );
    assert!(
        !root.join("compile_cases.py").exists(),
        "--print writes nothing"
    );

    let output = graphbreak(root, &["init"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let config = std::fs::read_to_string(root.join("graphbreak.toml")).unwrap();
    let table: toml::Table = config.parse().expect("valid TOML");
    assert_eq!(table["torch-version"].as_str(), Some("2.4"), "{config}");
    // `app` holds no nn.Module: `app.**` would name nothing, so no roots are proposed (the
    // @torch.compile function is a root by itself).
    assert!(!config.contains("\nroots = "), "{config}");
    assert!(config.contains("#   app.f  (app.py:4)"), "{config}");
    // Without a pyproject.toml `check` has no configured cases: the next steps name the file, and say
    // nothing of unreached forwards when there are no roots.
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("3. graphbreak check compile_cases.py "),
        "{said}"
    );
    assert!(!said.contains("--show-unreached"), "{said}");
    // scan now uses that floor: set_stance (torch 2.6) is newer than 2.4.
    let scan = graphbreak(root, &["scan", "--select", "VR001"]);
    assert_eq!(scan.status.code(), Some(1), "{}", text(&scan));
    assert!(
        String::from_utf8_lossy(&scan.stdout).contains("app.py:6:5: VR001"),
        "{}",
        text(&scan)
    );
}

#[test]
fn the_cases_template_loads_the_users_model_and_fails_until_edited() {
    // Missing torch fails the test (never a silent pass).
    let python = common::python_with_torch_or_panic();
    let (_guard, root) = project_with_compile_calls();
    let output = graphbreak(&root, &["init"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let template = std::fs::read_to_string(root.join("compile_cases.py")).unwrap();
    assert!(
        template.contains("from pkg.models import Net"),
        "{template}"
    );
    assert!(!template.contains("ExampleModel"), "{template}");
    let run_check = |root: &Path| {
        Command::new(env!("CARGO_BIN_EXE_graphbreak"))
            .current_dir(root)
            .args(["check", "--backend", "eager", "--output-format", "json"])
            .args(["--warmup", "1", "--steps", "2", "--no-measure"])
            .arg("--python")
            .arg(python)
            .env(
                "XDG_CACHE_HOME",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("init-cli-cache"),
            )
            .output()
            .expect("run graphbreak check")
    };
    // Unedited, every case fails with the message saying what to fill in: no "ok" for a
    // placeholder.
    let check = run_check(&root);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check));
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).expect("json report");
    let results = report["results"].as_array().expect("results");
    assert_eq!(results.len(), 3, "{report}");
    for result in results {
        assert_ne!(result["status"].as_str(), Some("ok"), "{result}");
        assert!(
            result.to_string().contains("NotImplementedError"),
            "{result}"
        );
    }
    // Filled in as the message says, the user's own model compiles.
    let edited = template
        .replace(
            "    raise NotImplementedError(\n        \"compile_cases.py: set Net's arguments and example_args in case_net, then delete this raise\"\n    )\n",
            "",
        );
    assert_ne!(edited, template, "{template}");
    std::fs::write(root.join("compile_cases.py"), edited).unwrap();
    let check = run_check(&root);
    let report: serde_json::Value = serde_json::from_slice(&check.stdout)
        .unwrap_or_else(|e| panic!("json report: {e}\n{}", text(&check)));
    let net = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["case"].as_str() == Some("compile_cases.py::case_net"))
        .expect("case_net");
    assert_eq!(net["status"].as_str(), Some("ok"), "{net}");
}
