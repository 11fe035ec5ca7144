//! The torch floor where a project does not put it in `[project].dependencies`: installed packages'
//! `*.dist-info/METADATA`, `setup.cfg`, a literal `install_requires` in `setup.py`, `requirements*.txt`.
//! Each case is a temporary project scanned by the real binary; VR001 names the floor and its file.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn scan(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_graphbreak"))
        .current_dir(dir)
        .arg("scan")
        .args(args)
        .output()
        .expect("run graphbreak")
}

use common::{stdout, write};

/// `torch.compiler.is_compiling` is newer than the floors below, so VR001 fires iff a floor was found.
const USES_NEW_API: &str = "import torch\n\ndef f():\n    return torch.compiler.is_compiling()\n";

#[track_caller]
fn assert_floor(output: &Output, floor: &str, origin: &str) {
    let text = stdout(output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("VR001"), "{text}");
    assert!(
        text.contains(&format!("supports torch {floor} (")),
        "{text}"
    );
    assert!(text.contains(origin), "{text}");
}

#[test]
fn installed_package_floor_comes_from_its_dist_info_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site-packages");
    write(&site, "ultra_pkg/__init__.py", "");
    write(&site, "ultra_pkg/nn/tasks.py", USES_NEW_API);
    write(
        &site,
        "ultra_pkg-8.4.1.dist-info/METADATA",
        "Metadata-Version: 2.4\nName: ultra-pkg\nRequires-Dist: numpy>=1.23\nRequires-Dist: torch>=1.8.0\nRequires-Dist: torch>=2.6; extra == \"export\"\n\nlong description mentioning torch>=9\n",
    );
    // Another distribution next to it must not lend its floor.
    write(
        &site,
        "other-1.0.dist-info/METADATA",
        "Name: other\nRequires-Dist: torch>=2.9\n",
    );
    let output = scan(&site, &["ultra_pkg"]);
    assert_floor(
        &output,
        "1.8",
        "`torch>=1.8.0` in ultra_pkg-8.4.1.dist-info/METADATA",
    );
}

#[test]
fn installed_package_with_a_different_import_name_is_found_through_top_level_or_record() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    write(site, "detlib/__init__.py", USES_NEW_API);
    write(
        site,
        "Detection_Lib-0.3.dist-info/METADATA",
        "Name: Detection-Lib\nRequires-Dist: torch (>=1.10)\n",
    );
    write(
        site,
        "Detection_Lib-0.3.dist-info/RECORD",
        "detlib/__init__.py,sha256=x,1\n",
    );
    assert_floor(
        &scan(site, &["detlib"]),
        "1.10",
        "Detection_Lib-0.3.dist-info/METADATA",
    );
}

#[test]
fn setup_cfg_install_requires_gives_the_floor() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "setup.cfg",
        "[metadata]\nname = p\n[options]\ninstall_requires =\n    numpy\n    torch>=2.1\n",
    );
    write(dir.path(), "p/m.py", USES_NEW_API);
    assert_floor(
        &scan(dir.path(), &["."]),
        "2.1",
        "`torch>=2.1` in setup.cfg",
    );
}

#[test]
fn setup_py_literal_install_requires_gives_the_floor_without_running_it() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("executed");
    write(
        dir.path(),
        "setup.py",
        &format!(
            "from setuptools import setup\nopen({:?}, 'w').write('ran')\nREQUIRED = ['torch>=1.13.1', 'numpy']\nsetup(name='p', install_requires=REQUIRED)\n",
            marker.display().to_string()
        ),
    );
    write(dir.path(), "p/m.py", USES_NEW_API);
    assert_floor(
        &scan(dir.path(), &["."]),
        "1.13",
        "`torch>=1.13.1` in setup.py",
    );
    assert!(!marker.exists(), "setup.py was executed");
}

#[test]
fn requirements_txt_gives_the_floor_below_a_pyproject_without_torch() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pyproject.toml",
        "[project]\nname = \"p\"\ndynamic = [\"dependencies\"]\n",
    );
    write(dir.path(), "requirements-dev.txt", "torch>=2.5\n");
    write(
        dir.path(),
        "requirements.txt",
        "-r base.txt\n# torch>=0.4\ntorch>=2.0.1  # CPU wheels\n",
    );
    write(dir.path(), "p/m.py", USES_NEW_API);
    assert_floor(
        &scan(dir.path(), &["."]),
        "2.0",
        "`torch>=2.0.1` in requirements.txt",
    );
}

#[test]
fn declared_settings_win_over_the_fallback_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "requirements.txt", "torch>=1.8\n");
    write(dir.path(), "p/m.py", USES_NEW_API);
    // torch-version = "latest" means no floor: requirements.txt must not bring one back.
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.graphbreak]\ntorch-version = \"latest\"\n",
    );
    let output = scan(dir.path(), &["."]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    // A torch requirement in [project].dependencies wins over requirements.txt.
    write(
        dir.path(),
        "pyproject.toml",
        "[project]\nname = \"p\"\ndependencies = [\"torch>=2.2\"]\n",
    );
    assert_floor(&scan(dir.path(), &["."]), "2.2", "pyproject.toml");
    // The command line wins over everything.
    let output = scan(dir.path(), &["--torch-version", "2.9", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn no_floor_anywhere_reports_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "requirements.txt", "numpy\n");
    write(
        dir.path(),
        "setup.py",
        "from setuptools import setup\nsetup(install_requires=[x for x in []])\n",
    );
    write(dir.path(), "p/m.py", USES_NEW_API);
    let output = scan(dir.path(), &["."]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}
