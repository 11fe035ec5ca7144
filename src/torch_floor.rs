//! The torch floor where a project does not declare it in `[project].dependencies`: an installed
//! package's `*.dist-info/METADATA` (`Requires-Dist: torch>=...`), `setup.cfg` (`install_requires`),
//! a literal `install_requires` in `setup.py` (parsed, never executed) and `requirements*.txt`.
//!
//! Used only when the governing configuration file says nothing about torch (no `torch-version`, no
//! torch in `[project].dependencies`), so an explicit setting always wins.

use crate::config::{TorchVersion, torch_floor_from_requirement};
use ruff_python_ast::{self as ast, Expr, Stmt, visitor};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A floor and the place it was read from (`` `torch>=1.8.0` in ultralytics-8.4.190.dist-info/METADATA ``).
/// `floor` is None where torch is required without a lower bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FloorSource {
    pub floor: Option<TorchVersion>,
    pub origin: String,
}

/// One `torch` requirement as written, and whether it applies only with an extra (`extra == "gpu"`).
struct TorchRequirement {
    text: String,
    floor: Option<TorchVersion>,
    extra_only: bool,
}

/// The floor a set of requirements guarantees: a requirement of the base install binds every install;
/// without one, the lowest floor any extra allows (none if an extra allows any torch).
fn combine(requirements: Vec<TorchRequirement>, file: &str) -> Option<FloorSource> {
    let source = |r: &TorchRequirement| FloorSource {
        floor: r.floor,
        origin: format!("`{}` in {file}", r.text),
    };
    // On equal floors, name the requirement without an environment marker (`; sys_platform == ...`).
    if let Some(base) = requirements
        .iter()
        .filter(|r| !r.extra_only)
        .max_by_key(|r| (r.floor, !r.text.contains(';')))
    {
        return Some(source(base));
    }
    // `None` (no bound) orders before every version, so an unbounded extra means no floor.
    requirements.iter().min_by_key(|r| r.floor).map(source)
}

fn requirement(text: &str, extra_only: bool) -> Option<TorchRequirement> {
    let text = text.trim();
    let floor = torch_floor_from_requirement(text)?;
    let extra_only = extra_only || marker_names_extra(text);
    Some(TorchRequirement {
        text: text.to_owned(),
        floor,
        extra_only,
    })
}

fn marker_names_extra(requirement: &str) -> bool {
    requirement
        .split_once(';')
        .is_some_and(|(_, marker)| marker.contains("extra"))
}

/// `Requires-Dist:` lines of a core-metadata file (the headers end at the first blank line).
pub fn floor_from_metadata(text: &str, file: &str) -> Option<FloorSource> {
    let requirements = text
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.strip_prefix("Requires-Dist:"))
        .filter_map(|value| requirement(value, false))
        .collect();
    combine(requirements, file)
}

/// `install_requires` (and `extras_require`) under `[options]` / `[options.extras_require]` of a
/// setup.cfg: a value on the key's line and/or indented continuation lines.
pub fn floor_from_setup_cfg(text: &str, file: &str) -> Option<FloorSource> {
    let mut section = String::new();
    let mut collecting: Option<bool> = None; // Some(extra_only) while reading a value's lines
    let mut requirements = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let continuation = line.starts_with([' ', '\t']) && !trimmed.is_empty();
        if continuation {
            if let Some(extra_only) = collecting {
                requirements.extend(requirement(trimmed, extra_only));
            }
            continue;
        }
        collecting = None;
        if let Some(name) = trimmed.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = name.trim().to_ascii_lowercase();
            continue;
        }
        let Some((key, value)) = trimmed.split_once(['=', ':']) else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let extra_only = match (section.as_str(), key.as_str()) {
            ("options", "install_requires") => false,
            ("options.extras_require", _) => true,
            _ => continue,
        };
        collecting = Some(extra_only);
        requirements.extend(requirement(value, extra_only));
    }
    combine(requirements, file)
}

/// `requirements*.txt`: one requirement a line; comments, options (`-r`, `--index-url`) and URLs skipped.
pub fn floor_from_requirements_txt(text: &str, file: &str) -> Option<FloorSource> {
    let requirements = text
        .lines()
        .map(|line| line.split(" #").next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty() && !line.starts_with('#') && !line.starts_with('-'))
        .filter_map(|line| requirement(line, false))
        .collect();
    combine(requirements, file)
}

/// A literal `install_requires=[...]` (or `extras_require={...: [...]}`) in a `setup(...)` call of a
/// setup.py, also through a module-level name bound to a literal list. Parsed, never executed.
pub fn floor_from_setup_py(source: &str, file: &str) -> Option<FloorSource> {
    let parsed = ruff_python_parser::parse_module(source).ok()?;
    let body = &parsed.syntax().body;
    let mut literals: HashMap<&str, &Expr> = HashMap::new();
    for stmt in body {
        if let Stmt::Assign(assign) = stmt
            && let [Expr::Name(name)] = assign.targets.as_slice()
        {
            literals.insert(name.id.as_str(), &assign.value);
        }
    }
    let mut calls = SetupCalls::default();
    visitor::walk_body(&mut calls, body);
    let mut requirements = Vec::new();
    for call in calls.found {
        for keyword in &call.arguments.keywords {
            let Some(arg) = &keyword.arg else { continue };
            let value = resolve(&keyword.value, &literals);
            match arg.as_str() {
                "install_requires" => {
                    requirements.extend(strings(value).filter_map(|s| requirement(&s, false)));
                }
                "extras_require" => {
                    if let Expr::Dict(dict) = value {
                        for item in &dict.items {
                            let extra = resolve(&item.value, &literals);
                            requirements
                                .extend(strings(extra).filter_map(|s| requirement(&s, true)));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    combine(requirements, file)
}

fn resolve<'a>(expr: &'a Expr, literals: &HashMap<&str, &'a Expr>) -> &'a Expr {
    match expr {
        Expr::Name(name) => literals.get(name.id.as_str()).copied().unwrap_or(expr),
        _ => expr,
    }
}

/// The string literals of a list/tuple/set literal (anything else yields nothing).
fn strings(expr: &Expr) -> impl Iterator<Item = String> + '_ {
    let elements: &[Expr] = match expr {
        Expr::List(list) => &list.elts,
        Expr::Tuple(tuple) => &tuple.elts,
        Expr::Set(set) => &set.elts,
        _ => &[],
    };
    elements.iter().filter_map(|e| {
        e.as_string_literal_expr()
            .map(|s| s.value.to_str().to_owned())
    })
}

/// Every call of `setup(...)` / `setuptools.setup(...)`, wherever it sits (often under `if __name__`).
#[derive(Default)]
struct SetupCalls<'a> {
    found: Vec<&'a ast::ExprCall>,
}

impl<'a> visitor::Visitor<'a> for SetupCalls<'a> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr {
            let is_setup = match call.func.as_ref() {
                Expr::Name(name) => name.id.as_str() == "setup",
                Expr::Attribute(attribute) => attribute.attr.as_str() == "setup",
                _ => false,
            };
            if is_setup {
                self.found.push(call);
            }
        }
        visitor::walk_expr(self, expr);
    }
}

/// Finds floors for directories, caching what each directory holds.
#[derive(Default)]
pub struct FloorFinder {
    in_dir: HashMap<PathBuf, Option<FloorSource>>,
    /// `*.dist-info` directories per site-packages-like directory.
    dist_infos: HashMap<PathBuf, Vec<PathBuf>>,
}

impl FloorFinder {
    /// The floor for files in `dir`: the nearest of `dir` and its ancestors (up to and including
    /// `stop`, the governing configuration file's directory, when there is one) that states one.
    pub fn find(&mut self, dir: &Path, stop: Option<&Path>) -> Option<FloorSource> {
        for ancestor in dir.ancestors() {
            if let Some(found) = self.in_directory(ancestor) {
                return Some(found);
            }
            if stop.is_some_and(|stop| stop == ancestor) {
                break;
            }
        }
        None
    }

    fn in_directory(&mut self, dir: &Path) -> Option<FloorSource> {
        if let Some(known) = self.in_dir.get(dir) {
            return known.clone();
        }
        let found = self.read_directory(dir);
        self.in_dir.insert(dir.to_path_buf(), found.clone());
        found
    }

    fn read_directory(&mut self, dir: &Path) -> Option<FloorSource> {
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
        if let Some(found) = read("setup.cfg").and_then(|t| floor_from_setup_cfg(&t, "setup.cfg")) {
            return Some(found);
        }
        if let Some(found) = read("setup.py").and_then(|t| floor_from_setup_py(&t, "setup.py")) {
            return Some(found);
        }
        if let Some(found) = requirements_files(dir)
            .into_iter()
            .find_map(|name| read(&name).and_then(|text| floor_from_requirements_txt(&text, &name)))
        {
            return Some(found);
        }
        self.installed_metadata(dir)
    }

    /// `dir` as an installed top-level package: the sibling `*.dist-info` that owns it.
    fn installed_metadata(&mut self, dir: &Path) -> Option<FloorSource> {
        if !dir.join("__init__.py").is_file() {
            return None;
        }
        let package = dir.file_name()?.to_str()?;
        let parent = dir.parent()?;
        let dist_infos = self
            .dist_infos
            .entry(parent.to_path_buf())
            .or_insert_with(|| list_dist_infos(parent))
            .clone();
        let owner = dist_infos
            .iter()
            .find(|d| distribution_name(d).is_some_and(|n| n == normalize(package)))
            .or_else(|| dist_infos.iter().find(|d| lists_package(d, package)))?;
        let text = std::fs::read_to_string(owner.join("METADATA")).ok()?;
        let label = format!("{}/METADATA", owner.file_name()?.to_string_lossy());
        floor_from_metadata(&text, &label)
    }
}

fn requirements_files(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("requirements") && n.ends_with(".txt"))
        .collect();
    // `requirements.txt` (the base install) before `requirements-dev.txt` and friends.
    names.sort_by_key(|n| (n != "requirements.txt", n.clone()));
    names
}

fn list_dist_infos(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "dist-info") && p.is_dir())
        .collect();
    found.sort();
    found
}

/// `Pillow-10.0.dist-info` → `pillow` (PEP 503 normalization, `-`/`.` folded to `_`).
fn distribution_name(dist_info: &Path) -> Option<String> {
    let stem = dist_info.file_stem()?.to_str()?;
    let name = stem.split_once('-').map_or(stem, |(name, _)| name);
    Some(normalize(name))
}

fn normalize(name: &str) -> String {
    name.to_ascii_lowercase().replace(['-', '.'], "_")
}

/// Whether a distribution installs `package`: its `top_level.txt`, else its `RECORD`.
fn lists_package(dist_info: &Path, package: &str) -> bool {
    if let Ok(text) = std::fs::read_to_string(dist_info.join("top_level.txt")) {
        return text.lines().any(|l| l.trim() == package);
    }
    let prefix = format!("{package}/");
    std::fs::read_to_string(dist_info.join("RECORD"))
        .is_ok_and(|text| text.lines().any(|l| l.starts_with(&prefix)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(major: u32, minor: u32) -> Option<TorchVersion> {
        Some(TorchVersion { major, minor })
    }

    #[test]
    fn metadata_base_requirement_binds_and_extras_only_fall_back() {
        let text = "Metadata-Version: 2.1\nName: x\nRequires-Dist: numpy\nRequires-Dist: torch (>=1.8.0)\nRequires-Dist: torch>=2.1; extra == \"fast\"\n\nRequires-Dist: torch>=9.0\n";
        let found = floor_from_metadata(text, "x.dist-info/METADATA").unwrap();
        assert_eq!(found.floor, v(1, 8));
        assert_eq!(found.origin, "`torch (>=1.8.0)` in x.dist-info/METADATA");
        let extras = "Name: t\nRequires-Dist: torch>=2.2; extra == \"torch\"\nRequires-Dist: torch>=2.4; extra == \"all\"\n";
        assert_eq!(floor_from_metadata(extras, "M").unwrap().floor, v(2, 2));
        let unbounded_extra = "Name: t\nRequires-Dist: torch; extra == \"a\"\nRequires-Dist: torch>=2.4; extra == \"b\"\n";
        assert_eq!(
            floor_from_metadata(unbounded_extra, "M").unwrap().floor,
            None
        );
        assert!(floor_from_metadata("Name: t\nRequires-Dist: torchvision>=0.17\n", "M").is_none());
    }

    #[test]
    fn setup_cfg_reads_inline_and_continued_values() {
        let text = "[metadata]\nname = x\n\n[options]\npackages = find:\ninstall_requires =\n    numpy\n    torch>=2.0,<3  \n# comment\n[options.extras_require]\ndev = torch>=2.4\n";
        let found = floor_from_setup_cfg(text, "setup.cfg").unwrap();
        assert_eq!(found.floor, v(2, 0));
        assert_eq!(found.origin, "`torch>=2.0,<3` in setup.cfg");
        assert!(floor_from_setup_cfg("[metadata]\ninstall_requires = torch>=2.0\n", "s").is_none());
    }

    #[test]
    fn setup_py_literal_lists_and_names_are_read_not_executed() {
        let text = "import os\nfrom setuptools import setup\nREQS = ['numpy', 'torch>=1.13']\nos.system('rm -rf /')\nif __name__ == '__main__':\n    setup(name='x', install_requires=REQS)\n";
        assert_eq!(
            floor_from_setup_py(text, "setup.py").unwrap().floor,
            v(1, 13)
        );
        let extras =
            "import setuptools\nsetuptools.setup(extras_require={'gpu': ['torch>=2.3']})\n";
        assert_eq!(
            floor_from_setup_py(extras, "setup.py").unwrap().floor,
            v(2, 3)
        );
        let computed =
            "from setuptools import setup\nsetup(install_requires=open('r.txt').read().split())\n";
        assert!(floor_from_setup_py(computed, "setup.py").is_none());
        assert!(floor_from_setup_py("def (:\n", "setup.py").is_none());
    }

    #[test]
    fn requirements_txt_skips_options_and_comments() {
        let text = "-r base.txt\n--extra-index-url https://x\n# torch>=1.0\ntorch==2.4.1 # pinned\nnumpy\n";
        let found = floor_from_requirements_txt(text, "requirements.txt").unwrap();
        assert_eq!(found.floor, v(2, 4));
        assert_eq!(found.origin, "`torch==2.4.1` in requirements.txt");
    }
}
