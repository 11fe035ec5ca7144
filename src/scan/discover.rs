//! Phase 1 of `scan`: walk the given paths (honouring .gitignore), pick Python files, attach the
//! configuration that governs each, and name each file's module (`pkg/sub/mod.py` → `pkg.sub.mod`).

use super::ScanOptions;
use crate::config::{self, Settings};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct DiscoveredFile {
    pub path: PathBuf,
    pub module: String,
    pub is_package_init: bool,
    pub settings: Arc<Settings>,
}

/// Directories never worth scanning (virtual environments, build outputs, caches).
const DEFAULT_EXCLUDED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    "__pypackages__",
    "node_modules",
    "site-packages",
    "build",
    "dist",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
];

/// A directory below a walked root named in `DEFAULT_EXCLUDED_DIRS` (a root itself is always walked).
fn is_excluded_dir(entry: &ignore::DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_dir())
        && entry.depth() > 0
        && DEFAULT_EXCLUDED_DIRS.contains(&entry.file_name().to_string_lossy().as_ref())
}

/// `context_root`: a directory walked only to give the named files their project (imports, base
/// classes, callers); its files are never reported, so a broken configuration there skips them
/// instead of failing the scan.
pub fn discover(
    options: &ScanOptions,
    context_root: Option<&Path>,
) -> Result<Vec<DiscoveredFile>, String> {
    let paths: Vec<PathBuf> = if options.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        options.paths.clone()
    };
    let cli_excludes = options
        .exclude
        .iter()
        .map(|pattern| {
            globset::GlobBuilder::new(pattern)
                .literal_separator(false)
                .build()
                .map(|g| g.compile_matcher())
                .map_err(|e| format!("--exclude: bad glob `{pattern}`: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut configs = ConfigCache::new(options)?;
    let mut packages = PackageCache::default();
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();

    let context: Vec<PathBuf> = context_root.map(Path::to_path_buf).into_iter().collect();
    for root in paths.iter().chain(context.iter()) {
        let lenient = context.contains(root);
        let metadata = std::fs::metadata(root).map_err(|e| format!("{}: {e}", root.display()))?;
        if metadata.is_file() {
            // Explicitly named files are always scanned, whatever their extension or ignores.
            let path = absolute(root);
            if seen.insert(path.clone()) {
                let settings = configs.for_file(&path)?;
                found.push(describe(path, settings, &mut packages));
            }
            continue;
        }
        let walker = ignore::WalkBuilder::new(root)
            .hidden(true)
            .follow_links(false)
            .require_git(false)
            .filter_entry(|entry| !is_excluded_dir(entry))
            .build();
        for entry in walker {
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    // An unreadable directory or a broken link: say so, keep going.
                    eprintln!("graphbreak: warning: {err}");
                    continue;
                }
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let path = entry.path();
            let wanted = match path.extension().and_then(|e| e.to_str()) {
                Some("py") => true,
                Some("pyi") => options.include_stubs,
                Some("ipynb") => true,
                _ => false,
            };
            if !wanted {
                continue;
            }
            let path = absolute(path);
            if cli_excludes.iter().any(|g| g.is_match(&path)) {
                continue;
            }
            let settings = match configs.for_file(&path) {
                Ok(settings) => settings,
                Err(_) if lenient => continue,
                Err(err) => return Err(err),
            };
            if settings.exclude.iter().any(|g| g.is_match(&path)) {
                continue;
            }
            if seen.insert(path.clone()) {
                found.push(describe(path, settings, &mut packages));
            }
        }
    }
    Ok(found)
}

/// Python files under the directories in `paths` that the walk skipped only because of ignore
/// files (`.gitignore`, `.ignore`, a parent directory's included: a virtual environment's `*`
/// hides everything under it). Asked only when a scan found no file at all, to say why.
pub fn count_ignored_python_files(paths: &[PathBuf]) -> usize {
    let mut count = 0;
    for root in paths.iter().filter(|p| p.is_dir()) {
        let walker = ignore::WalkBuilder::new(root)
            .hidden(true)
            .follow_links(false)
            .git_ignore(false)
            .git_global(false)
            .git_exclude(false)
            .ignore(false)
            .parents(false)
            .filter_entry(|entry| !is_excluded_dir(entry))
            .build();
        count += walker
            .flatten()
            .filter(|entry| {
                entry.file_type().is_some_and(|t| t.is_file())
                    && entry.path().extension().is_some_and(|e| e == "py")
            })
            .count();
    }
    count
}

/// Absolute and lexically normalized (`b/../a/x.py` → `a/x.py`), so the same file always has one
/// path whatever the arguments looked like; symlinks are left alone.
pub fn absolute(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut normal = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}

fn describe(path: PathBuf, settings: Arc<Settings>, packages: &mut PackageCache) -> DiscoveredFile {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let is_package_init = stem == "__init__";
    let mut parts: Vec<String> = Vec::new();
    if !is_package_init {
        parts.push(stem);
    }
    let mut dir = path.parent();
    while let Some(current) = dir {
        if !packages.is_inside_package(current) {
            break;
        }
        parts.push(
            current
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        dir = current.parent();
    }
    parts.reverse();
    DiscoveredFile {
        path,
        module: parts.join("."),
        is_package_init,
        settings,
    }
}

/// Which directories name a module path segment. A regular package (`__init__.py`) does; so does
/// a directory without one whose parent does (a PEP 420 namespace portion inside a regular package:
/// Python 3 imports `pkg/sub/mod.py` as `pkg.sub.mod` when `pkg` is on the import path's package
/// chain, whether or not `sub/` has an `__init__.py`). A directory with no regular package above it
/// is a top-level namespace or a plain source root — nothing says where its import path starts —
/// so it ends the chain as before. Ruff names modules the same way only for directories listed in
/// its `namespace-packages` setting; here no setting is needed, because inside a regular package
/// there is only one name Python can give the file.
#[derive(Default)]
struct PackageCache {
    is_package: HashMap<PathBuf, bool>,
    inside_package: HashMap<PathBuf, bool>,
}

impl PackageCache {
    /// `dir` is a regular package, or an identifier-named directory whose parent is (transitively)
    /// one. Memoized, so the walk up is paid once per directory.
    fn is_inside_package(&mut self, dir: &Path) -> bool {
        if let Some(&known) = self.inside_package.get(dir) {
            return known;
        }
        let known = self.is_package(dir)
            || (dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(is_identifier)
                && dir
                    .parent()
                    .is_some_and(|parent| self.is_inside_package(parent)));
        self.inside_package.insert(dir.to_path_buf(), known);
        known
    }

    fn is_package(&mut self, dir: &Path) -> bool {
        if let Some(&known) = self.is_package.get(dir) {
            return known;
        }
        let known = dir.join("__init__.py").is_file();
        self.is_package.insert(dir.to_path_buf(), known);
        known
    }
}

/// A Python identifier (ASCII subset is enough to refuse `my-dir`, `1st`, `.hidden`).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

struct ConfigCache {
    fixed: Option<Arc<Settings>>,
    by_dir: HashMap<PathBuf, Arc<Settings>>,
    by_file: HashMap<PathBuf, Arc<Settings>>,
    floors: crate::torch_floor::FloorFinder,
}

impl ConfigCache {
    fn new(options: &ScanOptions) -> Result<ConfigCache, String> {
        let fixed = if options.no_config {
            Some(super::default_settings())
        } else if let Some(file) = &options.config_file {
            Some(super::load_config(file)?)
        } else {
            None
        };
        Ok(ConfigCache {
            fixed,
            by_dir: HashMap::new(),
            by_file: HashMap::new(),
            floors: crate::torch_floor::FloorFinder::default(),
        })
    }

    fn for_file(&mut self, path: &Path) -> Result<Arc<Settings>, String> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        if let Some(settings) = self.by_dir.get(&dir) {
            return Ok(settings.clone());
        }
        let config_file = config::find_config_file(&dir);
        let mut settings = match &config_file {
            Some(file) => match self.by_file.get(file) {
                Some(settings) => settings.clone(),
                None => {
                    let settings = super::load_config(file)?;
                    self.by_file.insert(file.clone(), settings.clone());
                    settings
                }
            },
            None => super::default_settings(),
        };
        // The configuration says nothing about torch: look where packages declare it
        // (setup.cfg, setup.py, requirements*.txt, an installed package's METADATA).
        if settings.torch_floor_origin.is_empty() {
            let stop = config_file.as_deref().and_then(Path::parent);
            if let Some(found) = self.floors.find(&dir, stop) {
                let mut with_floor = (*settings).clone();
                with_floor.torch_floor = found.floor;
                with_floor.torch_floor_origin = found.origin;
                settings = Arc::new(with_floor);
            }
        }
        self.by_dir.insert(dir, settings.clone());
        Ok(settings)
    }
}
