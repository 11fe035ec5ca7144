//! With no torch floor declared, the torch installed in the environment is the floor
//! (src/scan/mod.rs; found by `Environment::installed_torch`, also through a `.pth` file):
//! corpus/torch_versions/installed/no_floor.py. A declared floor and `--torch-version` win.

#[macro_use]
mod common;

use common::{graphbreak, stdout, write};
use std::path::{Path, PathBuf};

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/torch_versions/installed")
}

/// `(line, code)` of each finding of no_floor.py.
fn findings(dir: &Path, args: &[&str]) -> Vec<(u32, String)> {
    let mut all = vec!["scan", "."];
    all.extend_from_slice(args);
    let out = graphbreak(dir, &all);
    let text = stdout(&out);
    let mut rows: Vec<(u32, String)> = text
        .lines()
        .filter_map(|line| line.strip_prefix("no_floor.py:"))
        .filter_map(|rest| {
            let mut parts = rest.splitn(3, ':');
            let row = parts.next()?.parse().ok()?;
            let code = parts.nth(1)?.split_whitespace().next()?.to_owned();
            Some((row, code))
        })
        .collect();
    rows.sort();
    rows
}

/// A virtual environment (as `venv` lays it out) whose site-packages holds `torch-<version>`'s
/// metadata directory, or a `.pth` file naming another directory that does.
fn environment(root: &Path, torch: &str, through_pth: bool) -> PathBuf {
    let venv = root.join("venv");
    let site = venv.join("lib/python3.11/site-packages");
    std::fs::create_dir_all(&site).unwrap();
    let holder = if through_pth {
        let base = root.join("base-site");
        write(
            &site,
            "base.pth",
            &format!("# shared torch\n{}\n", base.display()),
        );
        base
    } else {
        site
    };
    let dist_info = holder.join(format!("torch-{torch}.dist-info"));
    write(
        &dist_info,
        "METADATA",
        &format!("Name: torch\nVersion: {torch}\n"),
    );
    venv
}

/// `torch.sparse_coo_tensor(...)`: refused by Dynamo from torch 2.5 on (2.2 traces it).
const SPARSE: &str = "torch.sparse_coo_tensor(";
/// `copy.copy(...)`: skipped on every torch that compiles.
const COPY: &str = "copy.copy(";

/// The BR010 rows of the lines holding these texts.
fn rows(expected: &[&str]) -> Vec<(u32, String)> {
    expected
        .iter()
        .map(|text| {
            let row = common::line_containing(&project_file(), text) as u32;
            (row, "BR010".to_owned())
        })
        .collect()
}

#[test]
fn without_an_environment_only_what_breaks_on_every_torch_is_reported() {
    assert_eq!(findings(&project(), &[]), rows(&[COPY]));
}

#[test]
fn the_installed_torch_is_the_floor_when_none_is_declared() {
    let tmp = tempfile::tempdir().unwrap();
    let venv = environment(tmp.path(), "2.11.0+cu130", false);
    let env = venv.to_str().unwrap();
    assert_eq!(
        findings(&project(), &["--python-env", env]),
        rows(&[SPARSE, COPY])
    );
    // `--torch-version` wins over the environment.
    assert_eq!(
        findings(&project(), &["--python-env", env, "--torch-version", "2.2"]),
        rows(&[COPY])
    );
}

#[test]
fn an_older_installed_torch_keeps_the_claims_of_older_torches() {
    let tmp = tempfile::tempdir().unwrap();
    let venv = environment(tmp.path(), "2.2.2", false);
    assert_eq!(
        findings(&project(), &["--python-env", venv.to_str().unwrap()]),
        rows(&[COPY])
    );
}

#[test]
fn torch_shared_through_a_pth_file_is_found() {
    let tmp = tempfile::tempdir().unwrap();
    let venv = environment(tmp.path(), "2.8.1", true);
    assert_eq!(
        findings(&project(), &["--python-env", venv.to_str().unwrap()]),
        rows(&[SPARSE, COPY])
    );
}

#[test]
fn a_declared_floor_wins_over_the_installed_torch() {
    let tmp = tempfile::tempdir().unwrap();
    let venv = environment(tmp.path(), "2.11.0", false);
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(project_file(), project.join("no_floor.py")).unwrap();
    write(
        &project,
        "pyproject.toml",
        "[project]\nname = \"no-floor\"\ndependencies = [\"torch>=2.2\"]\n",
    );
    assert_eq!(
        findings(&project, &["--python-env", venv.to_str().unwrap()]),
        rows(&[COPY])
    );
}

fn project_file() -> PathBuf {
    project().join("no_floor.py")
}

/// The log lines of Dynamo's graph breaks, in 2.11's format and in the older one
/// ("Graph break: ... from user code at:" then the frame), as the set of no_floor.py lines.
const BREAK_SITES: &str = r#"
import io, logging, re, sys
import torch
import no_floor
buffer = io.StringIO()
handler = logging.StreamHandler(buffer)
log = logging.getLogger("torch._dynamo")
torch._logging.set_logs(graph_breaks=True)
log.addHandler(handler)
no_floor.run()
log.removeHandler(handler)
found = re.findall(
    r'Graph break(?: in user code at (\S+):(\d+)|[^\n]* from user code at:\s*\n[^\n]*File "([^"]+)", line (\d+))',
    buffer.getvalue(),
)
lines = sorted({int(a or c) for p, a, q, c in found if (p or q).endswith("no_floor.py")})
print(sys.prefix)
print(".".join(torch.__version__.split(".")[:2]))
print(*lines)
"#;

/// The real torch of the test Python: with its environment as `--python-env`, every line scan
/// reports is one where Dynamo on that torch breaks, and `sparse_coo_tensor` is reported exactly
/// when the installed torch is one the table measured it skipped on (2.5 and newer).
#[test]
fn the_real_environment_agrees_with_dynamo() {
    let python = require_torch!();
    let probe = std::process::Command::new(python)
        .current_dir(project())
        .args(["-c", BREAK_SITES])
        .output()
        .expect("run python");
    assert!(
        probe.status.success(),
        "{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    let text = String::from_utf8_lossy(&probe.stdout).into_owned();
    let mut lines = text.lines();
    let prefix = lines.next().unwrap().to_owned();
    let (major, minor) = lines.next().unwrap().split_once('.').unwrap();
    let installed: (u32, u32) = (major.parse().unwrap(), minor.parse().unwrap());
    let broke: Vec<u32> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let reported: Vec<u32> = findings(&project(), &["--python-env", &prefix])
        .into_iter()
        .map(|(row, _)| row)
        .collect();
    assert!(
        reported.iter().all(|row| broke.contains(row)),
        "scan {reported:?}, Dynamo {broke:?}"
    );
    let expected = if installed >= (2, 5) {
        rows(&[SPARSE, COPY])
    } else {
        rows(&[COPY])
    };
    let expected: Vec<u32> = expected.into_iter().map(|(row, _)| row).collect();
    assert_eq!(
        reported, expected,
        "torch {installed:?}: Dynamo broke at {broke:?}"
    );
}
