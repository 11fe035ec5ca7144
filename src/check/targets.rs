//! Turning targets (`file.py::factory`, `file.py::factory[k=v]`, `file.py`, pyproject entries) into cases.
//! Files are parsed with ruff's parser, never imported: listing cases must not run user code.

use std::path::{Path, PathBuf};

use ruff_python_ast::Stmt;
use serde_json::{Map, Value};

use super::config::CaseEntry;

/// One factory call to run: the unit of `check` (× each interpreter).
#[derive(Debug, Clone)]
pub struct Case {
    /// pytest-style id shown in reports and used as the baseline key: `path/file.py::factory[k=v,...]`.
    pub node_id: String,
    /// Absolute path of the Python file.
    pub file: PathBuf,
    pub factory: String,
    pub params: Map<String, Value>,
    /// Working directory of the case's subprocess (the project root).
    pub cwd: PathBuf,
}

/// Resolves one target. `base` is the directory relative paths are resolved against (the current directory for
/// CLI targets, the pyproject's directory for configured ones); `cwd` is where the case will run.
pub fn resolve(entry: &CaseEntry, base: &Path, cwd: &Path) -> Result<Vec<Case>, String> {
    let (path_part, factory_part) = match entry.target.split_once("::") {
        Some((path, rest)) => (path, Some(rest)),
        None => (entry.target.as_str(), None),
    };
    if path_part.is_empty() {
        return Err(format!(
            "bad target `{}`: expected `path/to/file.py::factory` or a file",
            entry.target
        ));
    }
    let display_path = path_part.strip_prefix("./").unwrap_or(path_part).to_owned();
    let file = absolute(&base.join(path_part));
    if file.is_dir() {
        return Err(format!(
            "bad target `{}`: is a directory; give a file (all its `case_*` factories) or `file.py::factory`",
            entry.target
        ));
    }
    if !file.is_file() {
        return Err(format!(
            "bad target `{}`: file not found ({})",
            entry.target,
            file.display()
        ));
    }
    let names = top_level_names(&file)?;

    let mut factories: Vec<(String, Vec<(String, Value)>)> = Vec::new();
    match factory_part {
        None => {
            if !entry.params.is_empty() {
                // A matrix over a whole file would apply the same kwargs to every factory; almost surely a mistake.
                return Err(format!(
                    "bad target `{}`: `params` needs a `file.py::factory` target",
                    entry.target
                ));
            }
            let cases: Vec<String> = names
                .defs
                .iter()
                .filter(|name| name.starts_with("case_"))
                .cloned()
                .collect();
            if cases.is_empty() {
                return Err(format!(
                    "bad target `{}`: no top-level `def case_*` factory in the file",
                    entry.target
                ));
            }
            factories.extend(cases.into_iter().map(|name| (name, Vec::new())));
        }
        Some(rest) => {
            let (factory, inline_params) = split_inline_params(rest).ok_or_else(|| {
                format!(
                    "bad target `{}`: expected `file.py::factory[k=v,...]`",
                    entry.target
                )
            })?;
            if !is_identifier(&factory) {
                return Err(format!(
                    "bad target `{}`: `{factory}` is not a Python name",
                    entry.target
                ));
            }
            if !names.has_star_import && !names.all.iter().any(|name| name == &factory) {
                return Err(format!(
                    "bad target `{}`: no top-level `{factory}` defined in {}",
                    entry.target, display_path
                ));
            }
            if inline_params.is_empty() {
                for combination in cartesian(&entry.params) {
                    factories.push((factory.clone(), combination));
                }
            } else {
                if !entry.params.is_empty() {
                    return Err(format!(
                        "bad target `{}`: give params inline or in `params`, not both",
                        entry.target
                    ));
                }
                factories.push((factory, inline_params));
            }
        }
    }

    Ok(factories
        .into_iter()
        .map(|(factory, params)| {
            let mut node_id = format!("{display_path}::{factory}");
            if !params.is_empty() {
                let shown: Vec<String> = params
                    .iter()
                    .map(|(k, v)| format!("{k}={}", show_value(v)))
                    .collect();
                node_id.push_str(&format!("[{}]", shown.join(",")));
            }
            Case {
                node_id,
                file: file.clone(),
                factory,
                params: params.into_iter().collect(),
                cwd: cwd.to_path_buf(),
            }
        })
        .collect())
}

/// `build[size=nano,multi_scale=true]` → ("build", [("size","nano"),("multi_scale",true)]).
fn split_inline_params(rest: &str) -> Option<(String, Vec<(String, Value)>)> {
    let Some(open) = rest.find('[') else {
        return Some((rest.to_owned(), Vec::new()));
    };
    let inner = rest[open + 1..].strip_suffix(']')?;
    let mut params = Vec::new();
    for pair in inner.split(',').filter(|p| !p.trim().is_empty()) {
        let (key, value) = pair.split_once('=')?;
        let key = key.trim();
        if !is_identifier(key) {
            return None;
        }
        params.push((key.to_owned(), parse_scalar(value.trim())));
    }
    Some((rest[..open].to_owned(), params))
}

/// Values typed on the command line: bool / int / float when they look like one, else the string itself.
fn parse_scalar(text: &str) -> Value {
    match text {
        "true" | "True" => return Value::Bool(true),
        "false" | "False" => return Value::Bool(false),
        _ => {}
    }
    if let Ok(i) = text.parse::<i64>() {
        return Value::from(i);
    }
    if let Ok(f) = text.parse::<f64>()
        && f.is_finite()
    {
        return Value::from(f);
    }
    Value::from(text)
}

fn show_value(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn cartesian(params: &[(String, Vec<Value>)]) -> Vec<Vec<(String, Value)>> {
    let mut combinations: Vec<Vec<(String, Value)>> = vec![Vec::new()];
    for (name, values) in params {
        combinations = combinations
            .into_iter()
            .flat_map(|prefix| {
                values.iter().map(move |value| {
                    let mut next = prefix.clone();
                    next.push((name.clone(), value.clone()));
                    next
                })
            })
            .collect();
    }
    combinations
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

struct TopLevelNames {
    /// `def` names in source order (factories candidates).
    defs: Vec<String>,
    /// Every name bound at top level (defs, classes, assignments, imports).
    all: Vec<String>,
    has_star_import: bool,
}

fn top_level_names(file: &Path) -> Result<TopLevelNames, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
    let source =
        String::from_utf8(bytes).map_err(|_| format!("{}: not valid UTF-8", file.display()))?;
    let parsed = ruff_python_parser::parse_module(&source).map_err(|e| {
        let line = source[..usize::from(e.location.start()).min(source.len())]
            .matches('\n')
            .count()
            + 1;
        format!("{}:{line}: syntax error: {}", file.display(), e.error)
    })?;
    let mut names = TopLevelNames {
        defs: Vec::new(),
        all: Vec::new(),
        has_star_import: false,
    };
    collect_names(&parsed.syntax().body, &mut names);
    Ok(names)
}

fn collect_names(body: &[Stmt], names: &mut TopLevelNames) {
    for stmt in body {
        match stmt {
            Stmt::FunctionDef(def) => {
                names.defs.push(def.name.id.to_string());
                names.all.push(def.name.id.to_string());
            }
            Stmt::ClassDef(class) => names.all.push(class.name.id.to_string()),
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    if let Some(name) = target.as_name_expr() {
                        names.all.push(name.id.to_string());
                    }
                }
            }
            Stmt::AnnAssign(assign) => {
                if let Some(name) = assign.target.as_name_expr() {
                    names.all.push(name.id.to_string());
                }
            }
            Stmt::Import(import) => {
                for alias in &import.names {
                    let bound = alias.asname.as_ref().unwrap_or(&alias.name);
                    names
                        .all
                        .push(bound.id.split('.').next().unwrap_or_default().to_owned());
                }
            }
            Stmt::ImportFrom(import) => {
                for alias in &import.names {
                    if alias.name.id.as_str() == "*" {
                        names.has_star_import = true;
                    }
                    names
                        .all
                        .push(alias.asname.as_ref().unwrap_or(&alias.name).id.to_string());
                }
            }
            // Factories defined conditionally (`if HAS_CUDA: def case_gpu(): ...`, try/except) still count.
            Stmt::If(branch) => {
                collect_names(&branch.body, names);
                for clause in &branch.elif_else_clauses {
                    collect_names(&clause.body, names);
                }
            }
            Stmt::Try(block) => {
                collect_names(&block.body, names);
                collect_names(&block.orelse, names);
                collect_names(&block.finalbody, names);
            }
            _ => {}
        }
    }
}

pub fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    // Lexical normalisation only (no symlink resolution): keeps paths the user recognises.
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(target: &str) -> CaseEntry {
        CaseEntry {
            target: target.to_owned(),
            params: Vec::new(),
        }
    }

    fn write_cases(dir: &Path) {
        std::fs::write(
            dir.join("cases.py"),
            "import torch\n\ndef case_a():\n    pass\n\ndef helper():\n    pass\n\nif True:\n    def case_b():\n        pass\n\nbuild = helper\n",
        )
        .unwrap();
    }

    #[test]
    fn file_target_lists_case_functions_in_order() {
        let dir = tempfile::tempdir().unwrap();
        write_cases(dir.path());
        let cases = resolve(&entry("cases.py"), dir.path(), dir.path()).unwrap();
        let ids: Vec<&str> = cases.iter().map(|c| c.node_id.as_str()).collect();
        assert_eq!(ids, ["cases.py::case_a", "cases.py::case_b"]);
    }

    #[test]
    fn matrix_and_inline_params() {
        let dir = tempfile::tempdir().unwrap();
        write_cases(dir.path());
        let matrix = CaseEntry {
            target: "./cases.py::build".into(),
            params: vec![
                (
                    "multi_scale".into(),
                    vec![Value::Bool(true), Value::Bool(false)],
                ),
                (
                    "size".into(),
                    vec![Value::from("nano"), Value::from("base")],
                ),
            ],
        };
        let cases = resolve(&matrix, dir.path(), dir.path()).unwrap();
        assert_eq!(cases.len(), 4);
        assert_eq!(
            cases[0].node_id,
            "cases.py::build[multi_scale=true,size=nano]"
        );
        assert_eq!(cases[0].params["multi_scale"], Value::Bool(true));

        let inline = resolve(
            &entry("cases.py::build[size=nano,n=3]"),
            dir.path(),
            dir.path(),
        )
        .unwrap();
        assert_eq!(inline[0].params["n"], Value::from(3));
        assert_eq!(inline[0].node_id, "cases.py::build[size=nano,n=3]");
    }

    #[test]
    fn bad_targets_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        write_cases(dir.path());
        std::fs::write(dir.path().join("broken.py"), "def case_x(:\n").unwrap();
        for (target, expected) in [
            ("missing.py::case_a", "file not found"),
            ("cases.py::nope", "no top-level `nope`"),
            (
                "cases.py::case_a[size]",
                "expected `file.py::factory[k=v,...]`",
            ),
            ("broken.py", "syntax error"),
            ("::x", "bad target"),
        ] {
            let err = resolve(&entry(target), dir.path(), dir.path()).unwrap_err();
            assert!(err.contains(expected), "{target}: {err}");
        }
    }
}
