//! `--torch 2.5,2.11`: one cached virtual environment per torch version under the user cache directory,
//! created once (venv + pip, or uv when on PATH) and reused. The user's project is installed into it
//! (`pip install -e <root>` or `-r requirements`) with torch pinned alongside so the install cannot move torch.
//! A marker file records what was installed, so a second project or a changed requirements file reinstalls only
//! that part, never torch.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const MARKER: &str = "graphbreak-provisioned.json";

/// `2.5` → `torch==2.5.*`, `2.5.1` → `torch==2.5.1`; anything else is a usage error.
pub fn torch_requirement(version: &str) -> Result<String, String> {
    let parts: Vec<&str> = version.split('.').collect();
    let numeric = parts
        .iter()
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    match (numeric, parts.len()) {
        (true, 2) => Ok(format!("torch=={version}.*")),
        (true, 3) => Ok(format!("torch=={version}")),
        _ => Err(format!(
            "--torch: `{version}` is not a version like 2.5 or 2.5.1"
        )),
    }
}

pub struct Provisioner {
    pub venvs_dir: PathBuf,
    /// Project to install: directory with pyproject.toml/setup.py, if it is an installable package.
    pub project_root: Option<PathBuf>,
    pub requirements: Option<PathBuf>,
}

impl Provisioner {
    /// Returns the venv's interpreter, creating and filling the venv when needed. Progress goes to stderr.
    pub fn ensure(&self, version: &str) -> Result<PathBuf, String> {
        let torch_spec = torch_requirement(version)?;
        let venv = self.venvs_dir.join(format!("torch-{version}"));
        let python = venv_python(&venv);
        let uv = which("uv");
        let mut did_work = false;
        if !python.exists() {
            did_work = true;
            eprintln!(
                "graphbreak: creating virtual environment {}",
                venv.display()
            );
            std::fs::create_dir_all(&self.venvs_dir)
                .map_err(|e| format!("cannot create {}: {e}", self.venvs_dir.display()))?;
            let mut command = match &uv {
                Some(uv) => {
                    let mut c = Command::new(uv);
                    c.arg("venv").arg("--seed").arg(&venv);
                    c
                }
                None => {
                    let mut c = Command::new(base_python());
                    c.args(["-m", "venv"]).arg(&venv);
                    c
                }
            };
            if let Err(message) = run_logged(&mut command) {
                let _ = std::fs::remove_dir_all(&venv);
                return Err(format!("creating {} failed: {message}", venv.display()));
            }
        }

        let marker_path = venv.join(MARKER);
        let mut marker: Value = std::fs::read_to_string(&marker_path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_else(|| json!({}));
        if marker["torch"].as_str() != Some(torch_spec.as_str()) {
            did_work = true;
            eprintln!(
                "graphbreak: installing {torch_spec} into {} (once; reused later)",
                venv.display()
            );
            run_logged(&mut pip_install(
                &uv,
                &python,
                std::slice::from_ref(&torch_spec),
            ))
            .map_err(|message| {
                format!(
                    "installing {torch_spec} failed: {message} (no wheel for this Python? \
                     GRAPHBREAK_VENV_PYTHON picks the interpreter venvs are created from)"
                )
            })?;
            marker = json!({"torch": torch_spec, "installed": []});
            write_marker(&marker_path, &marker)?;
        }

        if let Some((key, args)) = self.project_install()? {
            let already = marker["installed"]
                .as_array()
                .is_some_and(|list| list.iter().any(|k| k == &key));
            if !already {
                did_work = true;
                eprintln!(
                    "graphbreak: installing {} into {}",
                    args.join(" "),
                    venv.display()
                );
                let mut all = args.clone();
                all.push(torch_spec.clone());
                run_logged(&mut pip_install(&uv, &python, &all))
                    .map_err(|message| format!("installing the project failed: {message}"))?;
                if let Some(list) = marker["installed"].as_array_mut() {
                    list.push(Value::from(key));
                }
                write_marker(&marker_path, &marker)?;
            }
        }
        if !did_work {
            eprintln!("graphbreak: reusing {} ({torch_spec})", venv.display());
        }
        Ok(python)
    }

    /// (marker key, pip arguments) for the user's project, or None when there is nothing to install.
    fn project_install(&self) -> Result<Option<(String, Vec<String>)>, String> {
        if let Some(requirements) = &self.requirements {
            let text = std::fs::read(requirements)
                .map_err(|e| format!("--requirements {}: {e}", requirements.display()))?;
            let key = format!(
                "requirements:{}:{:016x}",
                requirements.display(),
                fnv1a(&text)
            );
            return Ok(Some((
                key,
                vec!["-r".into(), requirements.display().to_string()],
            )));
        }
        let Some(root) = &self.project_root else {
            return Ok(None);
        };
        Ok(Some((
            format!("editable:{}", root.display()),
            vec!["-e".into(), root.display().to_string()],
        )))
    }
}

/// The torch version `python` has installed, when it satisfies `--torch <requested>` (`2.11` takes
/// any 2.11.x, `2.5.1` only 2.5.1; local tags such as `+cpu` are ignored): then that interpreter
/// is used as it is, and no venv is built for a torch already at hand. Read from the package
/// metadata, without importing torch.
pub fn active_torch_matching(python: &Path, requested: &str) -> Option<String> {
    const VERSION: &str = "import importlib.metadata as m\ntry:\n    print(m.version('torch'))\nexcept Exception:\n    pass";
    let output = Command::new(python)
        .args(["-c", VERSION])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let installed = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    (output.status.success() && version_satisfies(&installed, requested)).then_some(installed)
}

/// `2.11.0+cpu` satisfies `2.11` and `2.11.0`; not `2.1` or `2.11.1`.
fn version_satisfies(installed: &str, requested: &str) -> bool {
    let release = installed.split('+').next().unwrap_or_default();
    let have: Vec<&str> = release.split('.').collect();
    let want: Vec<&str> = requested.split('.').collect();
    !want.is_empty() && have.len() >= want.len() && have[..want.len()] == want[..]
}

/// The directory to `pip install -e`: nearest ancestor of `start` with setup.py, or a pyproject.toml that
/// declares a package (`[project]` or `[build-system]`; a pyproject holding only tool settings is not installable).
pub fn installable_project_root(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        if dir.join("setup.py").is_file() {
            return Some(dir.to_path_buf());
        }
        let text = std::fs::read_to_string(dir.join("pyproject.toml")).ok()?;
        let doc: toml::Table = toml::from_str(&text).ok()?;
        (doc.contains_key("project") || doc.contains_key("build-system")).then(|| dir.to_path_buf())
    })
}

fn write_marker(path: &Path, marker: &Value) -> Result<(), String> {
    std::fs::write(
        path,
        serde_json::to_string_pretty(marker).unwrap_or_default(),
    )
    .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn pip_install(uv: &Option<PathBuf>, python: &Path, args: &[String]) -> Command {
    match uv {
        Some(uv) => {
            let mut c = Command::new(uv);
            c.args(["pip", "install", "--python"])
                .arg(python)
                .args(args);
            c
        }
        None => {
            let mut c = Command::new(python);
            c.args(["-m", "pip", "install", "--disable-pip-version-check"])
                .args(args);
            c
        }
    }
}

/// Runs a provisioning step with its output shown on our stderr (stdout stays clean for the report).
fn run_logged(command: &mut Command) -> Result<(), String> {
    let status = command
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::io::stderr()))
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{:?} exited with {status}", command.get_program()))
    }
}

fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

/// Interpreter used to create venvs: `$GRAPHBREAK_VENV_PYTHON`, else `python3`.
fn base_python() -> PathBuf {
    std::env::var_os("GRAPHBREAK_VENV_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"))
}

pub fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// FNV-1a: a stable content hash without another dependency (harness file name, requirements changes).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torch_versions() {
        assert_eq!(torch_requirement("2.5").unwrap(), "torch==2.5.*");
        assert_eq!(torch_requirement("2.5.1").unwrap(), "torch==2.5.1");
        assert!(torch_requirement("latest").is_err());
        assert!(torch_requirement("2").is_err());
        assert!(torch_requirement("2..1").is_err());
    }

    #[test]
    fn an_installed_torch_satisfies_the_versions_it_is() {
        assert!(version_satisfies("2.11.0+cpu", "2.11"));
        assert!(version_satisfies("2.11.0", "2.11.0"));
        assert!(version_satisfies("2.5.1+cu121", "2.5.1"));
        assert!(!version_satisfies("2.11.0", "2.1"));
        assert!(!version_satisfies("2.11.0", "2.11.1"));
        assert!(!version_satisfies("", "2.11"));
    }

    #[test]
    fn tool_only_pyproject_is_not_installable() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[tool.graphbreak.check]\ncases = []\n",
        )
        .unwrap();
        let found = installable_project_root(dir.path());
        assert!(found.is_none_or(|root| root != dir.path()));
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[project]\nname = \"x\"\n",
        )
        .unwrap();
        assert_eq!(installable_project_root(dir.path()).unwrap(), dir.path());
    }
}
