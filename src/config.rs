//! Configuration: `[tool.graphbreak]` in the nearest `pyproject.toml` (or a `graphbreak.toml`), and
//! the project's torch floor from `[project].dependencies`.

use serde::Deserialize;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A torch `major.minor` version; patch releases never add APIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TorchVersion {
    pub major: u32,
    pub minor: u32,
}

impl TorchVersion {
    pub fn parse(text: &str) -> Option<TorchVersion> {
        let text = text.trim();
        let mut parts = text.split('.');
        let major = parts.next()?.trim().parse().ok()?;
        let minor = parts
            .next()
            .map(|m| {
                m.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .filter(|m| !m.is_empty())
            .map_or(Some(0), |m| m.parse().ok())?;
        Some(TorchVersion { major, minor })
    }
}

impl fmt::Display for TorchVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Lowest torch version allowed by a PEP 508 requirement on `torch`, if the string is one.
/// `torch>=2.2.0` → 2.2; `torch==2.4.*` → 2.4; `torch~=2.3` → 2.3; bare `torch` → None (no floor).
pub fn torch_floor_from_requirement(requirement: &str) -> Option<Option<TorchVersion>> {
    let requirement = requirement.split(';').next()?.trim();
    let name_end = requirement
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .unwrap_or(requirement.len());
    if !requirement[..name_end].eq_ignore_ascii_case("torch") {
        return None;
    }
    let mut rest = requirement[name_end..].trim();
    if let Some(after_extras) = rest.strip_prefix('[') {
        rest = after_extras.split_once(']').map_or("", |(_, r)| r).trim();
    }
    let rest = rest.trim_start_matches('(').trim_end_matches(')');
    let mut floor: Option<TorchVersion> = None;
    for clause in rest.split(',') {
        let clause = clause.trim();
        let version = [">=", "==", "~=", "==="]
            .iter()
            .find_map(|op| clause.strip_prefix(op))
            .or_else(|| clause.strip_prefix('>').filter(|v| !v.starts_with('=')));
        if let Some(version) = version.and_then(TorchVersion::parse) {
            floor = Some(floor.map_or(version, |f| f.max(version)));
        }
    }
    Some(floor)
}

/// What scan does with the option tier: findings reached only when a constructor option nothing
/// in the scanned files sets differs from its default (`semantic/options.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum OptionGated {
    /// Shown after the other findings and summarized; they do not change the exit status.
    #[default]
    Warn,
    /// Shown and counted like any other finding (exit 1).
    Error,
    /// Not shown (counted on the summary line only).
    Hide,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawSettings {
    pub select: Option<Vec<String>>,
    pub ignore: Option<Vec<String>>,
    pub extend_select: Option<Vec<String>>,
    pub per_file_ignores: Option<HashMap<String, Vec<String>>>,
    pub exclude: Option<Vec<String>>,
    pub torch_version: Option<String>,
    /// Glob patterns over qualified names of what the project compiles (`pkg.models.*`).
    pub roots: Option<Vec<String>>,
    /// `[tool.graphbreak.check]` belongs to `graphbreak check`; scan reads its case factories as
    /// compile roots.
    pub check: Option<toml::Value>,
    /// Where rule links in JSON and SARIF output point: `<rule-url-base>/CODE.md`.
    pub rule_url_base: Option<String>,
    /// `option-gated = "warn" | "error" | "hide"`: the option tier (`--option-gated`).
    pub option_gated: Option<OptionGated>,
}

/// Settings in force for the files under one configuration file.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    pub per_file_ignores: Vec<(globset::GlobMatcher, Vec<String>)>,
    pub exclude: Vec<globset::GlobMatcher>,
    pub torch_floor: Option<TorchVersion>,
    pub torch_floor_origin: String,
    /// `roots = [...]`: what the project compiles.
    pub roots: Vec<crate::semantic::link::RootPattern>,
    /// The factories of `[tool.graphbreak.check]` cases: absolute file, factory (`None`: every `case_*`).
    pub case_factories: Vec<(PathBuf, Option<String>)>,
    /// `rule-url-base = "..."`: where rule links point (default: the relative `rules/CODE.md`).
    pub rule_url_base: Option<String>,
    /// `option-gated = "..."`: what scan does with the option tier.
    pub option_gated: Option<OptionGated>,
}

#[derive(Debug)]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// Parses one configuration file. `pyproject.toml` without `[tool.graphbreak]` still yields the
/// torch floor from `[project].dependencies`.
pub fn load_settings(path: &Path) -> Result<Settings, ConfigError> {
    let error = |message: String| ConfigError {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| error(format!("cannot read: {e}")))?;
    let document: toml::Table =
        toml::from_str(&text).map_err(|e| error(format!("invalid TOML: {}", one_line(&e))))?;
    let is_pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
    // Deserialize from the text (not from a parsed table) so errors carry the line and the key.
    let raw: RawSettings = if is_pyproject {
        #[derive(Deserialize)]
        struct Pyproject {
            tool: Option<Tool>,
        }
        #[derive(Deserialize)]
        struct Tool {
            graphbreak: Option<RawSettings>,
        }
        toml::from_str::<Pyproject>(&text)
            .map_err(|e| error(format!("in [tool.graphbreak]: {}", one_line(&e))))?
            .tool
            .and_then(|t| t.graphbreak)
            .unwrap_or_default()
    } else {
        toml::from_str(&text).map_err(|e| error(one_line(&e)))?
    };
    let root = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut settings = Settings {
        select: raw.select.unwrap_or_else(|| vec!["ALL".to_owned()]),
        ignore: raw.ignore.unwrap_or_default(),
        rule_url_base: raw.rule_url_base,
        option_gated: raw.option_gated,
        ..Settings::default()
    };
    if let Some(extend) = raw.extend_select {
        settings.select.extend(extend);
    }
    for code in settings.select.iter().chain(settings.ignore.iter()) {
        if !crate::rules::is_known_selector(code) {
            return Err(error(format!(
                "unknown rule code or prefix `{code}` in select/ignore"
            )));
        }
    }
    for (pattern, codes) in raw.per_file_ignores.unwrap_or_default() {
        for code in &codes {
            if !crate::rules::is_known_selector(code) {
                return Err(error(format!(
                    "unknown rule code `{code}` in per-file-ignores for `{pattern}`"
                )));
            }
        }
        settings
            .per_file_ignores
            .push((glob(&pattern, &root).map_err(error)?, codes));
    }
    for pattern in raw.exclude.unwrap_or_default() {
        settings.exclude.push(glob(&pattern, &root).map_err(error)?);
    }
    for pattern in raw.roots.unwrap_or_default() {
        settings
            .roots
            .push(crate::semantic::link::RootPattern::parse(&pattern).map_err(error)?);
    }
    settings.case_factories = case_factories(raw.check.as_ref(), &root);
    if let Some(version) = raw.torch_version {
        // A non-empty origin also tells the fallback floor search (torch_floor.rs) to stay out.
        settings.torch_floor_origin =
            format!("torch-version = \"{version}\" in {}", file_name(path));
        if version != "latest" {
            settings.torch_floor = Some(TorchVersion::parse(&version).ok_or_else(|| {
                error(format!(
                    "torch-version = \"{version}\" is not a version like \"2.4\" (or \"latest\")"
                ))
            })?);
            settings.torch_floor_origin = format!("torch-version in {}", file_name(path));
        }
    } else if is_pyproject {
        let dependencies = document
            .get("project")
            .and_then(|p| p.get("dependencies"))
            .and_then(|d| d.as_array());
        for dependency in dependencies.into_iter().flatten() {
            let Some(text) = dependency.as_str() else {
                continue;
            };
            if let Some(floor) = torch_floor_from_requirement(text) {
                settings.torch_floor = floor;
                settings.torch_floor_origin = format!("`{text}` in {}", file_name(path));
                break;
            }
        }
    }
    Ok(settings)
}

/// The factory files and names of `[tool.graphbreak.check] cases` (`"f.py::build"`,
/// `"f.py"`, `{ target = "f.py::build[size=nano]", params = ... }`). Malformed entries are left to
/// `graphbreak check`, which reports them.
fn case_factories(check: Option<&toml::Value>, root: &Path) -> Vec<(PathBuf, Option<String>)> {
    let Some(cases) = check
        .and_then(|c| c.get("cases"))
        .and_then(toml::Value::as_array)
    else {
        return Vec::new();
    };
    cases
        .iter()
        .filter_map(|case| match case {
            toml::Value::String(target) => Some(target.as_str()),
            toml::Value::Table(table) => table.get("target").and_then(toml::Value::as_str),
            _ => None,
        })
        .map(|target| {
            let target = target.split('[').next().unwrap_or(target);
            let (file, factory) = match target.split_once("::") {
                Some((file, factory)) => (file, Some(factory.to_owned())),
                None => (target, None),
            };
            let path = root.join(file.trim_start_matches("./"));
            (crate::scan::discover::absolute(&path), factory)
        })
        .collect()
}

/// toml's message with its source snippet folded onto one line (`line 2, column 10: select = 3 ...`).
fn one_line(err: &toml::de::Error) -> String {
    let mut text = err.to_string();
    text = text.replace("TOML parse error at ", "");
    text.split('\n')
        .map(str::trim)
        .filter(|line| !line.trim_matches(['|', '^', ' ']).is_empty())
        .map(|line| {
            line.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ' || c == '|')
                .trim()
        })
        .collect::<Vec<_>>()
        .join(": ")
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A glob relative to the config root; a bare pattern (`tests/*`, `*.py`) also matches at any depth
/// below the root, like ruff's per-file-ignores.
fn glob(pattern: &str, root: &Path) -> Result<globset::GlobMatcher, String> {
    let absolute = if Path::new(pattern).is_absolute() {
        pattern.to_owned()
    } else {
        format!("{}/{}", root.display(), pattern.trim_start_matches("./"))
    };
    globset::GlobBuilder::new(&absolute)
        .literal_separator(false)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("bad glob `{pattern}`: {e}"))
}

/// Finds the configuration file that governs `dir`: the nearest `graphbreak.toml`, or
/// `pyproject.toml` (one with `[tool.graphbreak]` or a `torch` dependency), walking upwards.
pub fn find_config_file(dir: &Path) -> Option<PathBuf> {
    for ancestor in dir.ancestors() {
        let dedicated = ancestor.join("graphbreak.toml");
        if dedicated.is_file() {
            return Some(dedicated);
        }
        let pyproject = ancestor.join("pyproject.toml");
        if pyproject.is_file() {
            return Some(pyproject);
        }
    }
    None
}
