//! `[tool.graphbreak.check]` in the nearest pyproject.toml: the case list and default options.
//! Shape agreed in docs/check-protocol.md ("pyproject shape"); unknown keys are errors so that a typo
//! never silently drops a case or an option.

use std::path::{Path, PathBuf};

/// One `cases` entry: a target string plus an optional parameter matrix.
#[derive(Debug, Clone)]
pub struct CaseEntry {
    pub target: String,
    /// name → values; the matrix is the cartesian product (names in sorted order).
    pub params: Vec<(String, Vec<serde_json::Value>)>,
}

/// Options read from the pyproject; every field is optional, the CLI overrides each one.
#[derive(Debug, Clone, Default)]
pub struct FileOptions {
    pub python: Vec<String>,
    pub torch: Vec<String>,
    pub requirements: Option<String>,
    pub device: Option<String>,
    pub backend: Option<String>,
    pub dynamic: Option<String>,
    pub mode: Option<String>,
    pub fullgraph: Option<bool>,
    pub warmup: Option<u32>,
    pub steps: Option<u32>,
    pub timeout: Option<f64>,
    pub measure: Option<bool>,
    pub output_format: Option<String>,
    pub output: Option<String>,
    pub jsonl: Option<String>,
    pub baseline: Option<String>,
    pub regression_threshold: Option<f64>,
    pub fail_on_break: Option<bool>,
}

#[derive(Debug, Clone)]
pub struct ProjectConfig {
    /// The pyproject.toml that was read.
    pub path: PathBuf,
    /// Its directory: relative targets and paths in it resolve against this, and cases run with it as cwd.
    pub root: PathBuf,
    /// `None` when the file has no `[tool.graphbreak.check]` table.
    pub cases: Option<Vec<CaseEntry>>,
    pub options: FileOptions,
}

/// The nearest pyproject.toml at or above `start`.
pub fn find_pyproject(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join("pyproject.toml"))
        .find(|p| p.is_file())
}

/// Reads `[tool.graphbreak.check]` of `path`. Errors are user-facing messages (exit 2).
pub fn load(path: &Path) -> Result<ProjectConfig, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let doc: toml::Table =
        toml::from_str(&text).map_err(|e| format!("{shown}: invalid TOML: {e}"))?;
    let root = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let section = doc
        .get("tool")
        .and_then(|t| t.get("graphbreak"))
        .and_then(|g| g.get("check"));
    let Some(section) = section else {
        return Ok(ProjectConfig {
            path: path.to_path_buf(),
            root,
            cases: None,
            options: FileOptions::default(),
        });
    };
    let table = section
        .as_table()
        .ok_or_else(|| format!("{shown}: [tool.graphbreak.check] must be a table"))?;
    let mut options = FileOptions::default();
    let mut cases = None;
    for (raw_key, value) in table {
        let key = raw_key.replace('_', "-");
        let ctx =
            |what: &str| format!("{shown}: [tool.graphbreak.check] `{raw_key}` must be {what}");
        match key.as_str() {
            "cases" => cases = Some(parse_cases(value, &shown.to_string())?),
            "python" => {
                options.python =
                    string_or_list(value).ok_or_else(|| ctx("a string or a list of strings"))?
            }
            "torch" => {
                options.torch = match value {
                    // `torch = 2.5` is a float in TOML; accept it rather than make users quote versions.
                    toml::Value::Float(f) => vec![f.to_string()],
                    other => string_or_list(other)
                        .ok_or_else(|| ctx("a list of versions like \"2.5\""))?,
                }
            }
            "requirements" => {
                options.requirements = Some(string(value).ok_or_else(|| ctx("a string"))?)
            }
            "device" => options.device = Some(string(value).ok_or_else(|| ctx("a string"))?),
            "backend" => options.backend = Some(string(value).ok_or_else(|| ctx("a string"))?),
            "dynamic" => {
                options.dynamic = Some(match value {
                    toml::Value::Boolean(b) => b.to_string(),
                    toml::Value::String(s) => s.clone(),
                    _ => return Err(ctx("true, false or \"none\"")),
                })
            }
            "mode" => options.mode = Some(string(value).ok_or_else(|| ctx("a string"))?),
            "fullgraph" => {
                options.fullgraph = Some(value.as_bool().ok_or_else(|| ctx("true or false"))?)
            }
            "warmup" => {
                options.warmup = Some(count(value).ok_or_else(|| ctx("a non-negative integer"))?)
            }
            "steps" => options.steps = Some(count(value).ok_or_else(|| ctx("a positive integer"))?),
            "timeout" => {
                options.timeout = Some(number(value).ok_or_else(|| ctx("a number of seconds"))?)
            }
            "measure" => {
                options.measure = Some(value.as_bool().ok_or_else(|| ctx("true or false"))?)
            }
            "output-format" => {
                options.output_format = Some(string(value).ok_or_else(|| ctx("a string"))?)
            }
            "output" => options.output = Some(string(value).ok_or_else(|| ctx("a string"))?),
            "jsonl" => options.jsonl = Some(string(value).ok_or_else(|| ctx("a string"))?),
            "baseline" => options.baseline = Some(string(value).ok_or_else(|| ctx("a string"))?),
            "regression-threshold" => {
                options.regression_threshold =
                    Some(number(value).ok_or_else(|| ctx("a percentage"))?)
            }
            "fail-on-break" => {
                options.fail_on_break = Some(value.as_bool().ok_or_else(|| ctx("true or false"))?)
            }
            _ => {
                return Err(format!(
                    "{shown}: unknown key `{raw_key}` in [tool.graphbreak.check] (known: cases, python, torch, \
                     requirements, device, backend, dynamic, mode, fullgraph, warmup, steps, timeout, measure, \
                     output-format, output, jsonl, baseline, regression-threshold, fail-on-break)"
                ));
            }
        }
    }
    Ok(ProjectConfig {
        path: path.to_path_buf(),
        root,
        cases,
        options,
    })
}

fn parse_cases(value: &toml::Value, shown: &str) -> Result<Vec<CaseEntry>, String> {
    let list = value
        .as_array()
        .ok_or_else(|| format!("{shown}: [tool.graphbreak.check] `cases` must be a list"))?;
    list.iter()
        .enumerate()
        .map(|(index, entry)| match entry {
            toml::Value::String(target) => Ok(CaseEntry { target: target.clone(), params: Vec::new() }),
            toml::Value::Table(table) => parse_case_table(table, shown, index),
            _ => Err(format!(
                "{shown}: cases[{index}] must be a string or a table {{ target = \"file.py::factory\", params = {{ ... }} }}"
            )),
        })
        .collect()
}

fn parse_case_table(table: &toml::Table, shown: &str, index: usize) -> Result<CaseEntry, String> {
    let mut target = None;
    let mut params = Vec::new();
    for (key, value) in table {
        match key.as_str() {
            "target" => {
                target =
                    Some(string(value).ok_or_else(|| {
                        format!("{shown}: cases[{index}].target must be a string")
                    })?)
            }
            "params" => {
                let params_table = value.as_table().ok_or_else(|| {
                    format!("{shown}: cases[{index}].params must be a table of name = [values]")
                })?;
                for (name, values) in params_table {
                    let values: Vec<&toml::Value> = match values {
                        toml::Value::Array(items) => items.iter().collect(),
                        scalar => vec![scalar],
                    };
                    if values.is_empty() {
                        return Err(format!(
                            "{shown}: cases[{index}].params.{name} is an empty list"
                        ));
                    }
                    let json_values = values
                        .into_iter()
                        .map(|v| {
                            scalar_to_json(v).ok_or_else(|| {
                                format!(
                                    "{shown}: cases[{index}].params.{name}: values must be strings, numbers or booleans"
                                )
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    params.push((name.clone(), json_values));
                }
            }
            _ => {
                return Err(format!(
                    "{shown}: unknown key `{key}` in cases[{index}] of [tool.graphbreak.check] (known: target, params)"
                ));
            }
        }
    }
    let target = target.ok_or_else(|| format!("{shown}: cases[{index}] has no `target`"))?;
    params.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(CaseEntry { target, params })
}

fn scalar_to_json(value: &toml::Value) -> Option<serde_json::Value> {
    Some(match value {
        toml::Value::String(s) => serde_json::Value::from(s.clone()),
        toml::Value::Integer(i) => serde_json::Value::from(*i),
        toml::Value::Float(f) => serde_json::Value::from(*f),
        toml::Value::Boolean(b) => serde_json::Value::from(*b),
        _ => return None,
    })
}

fn string(value: &toml::Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

fn string_or_list(value: &toml::Value) -> Option<Vec<String>> {
    match value {
        toml::Value::String(s) => Some(vec![s.clone()]),
        toml::Value::Array(items) => items.iter().map(string).collect(),
        _ => None,
    }
}

fn count(value: &toml::Value) -> Option<u32> {
    value.as_integer().and_then(|i| u32::try_from(i).ok())
}

fn number(value: &toml::Value) -> Option<f64> {
    match value {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_str(text: &str) -> Result<ProjectConfig, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pyproject.toml");
        std::fs::write(&path, text).unwrap();
        load(&path)
    }

    #[test]
    fn reads_cases_and_options() {
        let config = load_str(
            r#"
[tool.graphbreak.check]
cases = ["a.py::case_x", { target = "b.py::build", params = { size = ["nano", "base"], multi_scale = [true, false] } }]
backend = "eager"
warmup_steps_typo_free = 1
"#,
        );
        let err = config.unwrap_err();
        assert!(
            err.contains("unknown key `warmup_steps_typo_free`"),
            "{err}"
        );

        let config = load_str(
            r#"
[tool.graphbreak.check]
cases = ["a.py::case_x", { target = "b.py::build", params = { size = ["nano", "base"], multi_scale = [true, false] } }]
backend = "eager"
regression_threshold = 5
torch = ["2.5", "2.11"]
"#,
        )
        .unwrap();
        let cases = config.cases.unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[1].params[0].0, "multi_scale");
        assert_eq!(cases[1].params[1].1.len(), 2);
        assert_eq!(config.options.backend.as_deref(), Some("eager"));
        assert_eq!(config.options.regression_threshold, Some(5.0));
        assert_eq!(config.options.torch, vec!["2.5", "2.11"]);
    }

    #[test]
    fn rejects_unknown_case_key_and_bad_toml() {
        let err =
            load_str("[tool.graphbreak.check]\ncases = [{ target = \"a.py\", parms = {} }]\n")
                .unwrap_err();
        assert!(err.contains("unknown key `parms`"), "{err}");
        let err = load_str("[tool.graphbreak.check\n").unwrap_err();
        assert!(err.contains("invalid TOML"), "{err}");
    }

    #[test]
    fn no_section_is_not_an_error() {
        let config = load_str("[project]\nname = \"x\"\n").unwrap();
        assert!(config.cases.is_none());
    }
}
