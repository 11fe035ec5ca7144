//! What the configured roots leave out, so a scan never narrows silently: root patterns (and case
//! factories) that name nothing in the scanned project, with the nearest qualified names as
//! suggestions, and the nn.Module `forward`s no root reaches.

use crate::config::Settings;
use crate::semantic::link::{Project, RootPattern, RootSpec};
use crate::semantic::summary::{FileId, display_qualname};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// One nn.Module `forward` that the roots do not reach.
#[derive(Debug)]
pub struct Unreached {
    /// `module.Class.forward`.
    pub name: String,
    pub path: PathBuf,
    pub line: u32,
}

/// Whether a file's own configuration says what is compiled: `roots = [...]` or check cases.
pub fn configured(settings: &Settings) -> bool {
    !settings.roots.is_empty() || !settings.case_factories.is_empty()
}

/// One pattern rooting what no configured roots would leave out of these modules: each names its
/// module exactly, which roots the module's top-level nn.Module classes (the default's forwards).
/// One alternation, not a pattern per module: the linker matches every pattern against every file.
pub fn default_roots_of(modules: &[&str]) -> Option<RootPattern> {
    let plain = |module: &&str| {
        !module.is_empty()
            && module
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '-')
    };
    let mut names: Vec<&str> = modules.iter().copied().filter(plain).collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return None;
    }
    let mut pattern = RootPattern::parse(&format!("{{{}}}", names.join(","))).ok()?;
    pattern.text =
        "(every nn.Module forward of files whose configuration sets no roots)".to_owned();
    Some(pattern)
}

/// How many suggestions an unmatched pattern gets.
const SUGGESTIONS: usize = 3;

/// Every root pattern and case factory that roots nothing, as one message per problem; empty when
/// all of them name something.
pub fn unmatched(project: &Project<'_>, spec: &RootSpec) -> Vec<String> {
    let mut problems = Vec::new();
    for pattern in &spec.patterns {
        if !roots_something(project, pattern) {
            let nearest = suggestions(project, pattern);
            let hint = if nearest.is_empty() {
                String::new()
            } else {
                format!("; nearest: {}", nearest.join(", "))
            };
            problems.push(format!(
                "root pattern `{}` matches no nn.Module class{} in the scanned files{hint}",
                pattern.text,
                if pattern.names_functions() {
                    " or function"
                } else {
                    ""
                }
            ));
        }
    }
    for (path, factory) in &spec.case_factories {
        let Some(name) = factory else { continue };
        let Some(file) = project.files.iter().find(|f| &f.path == path) else {
            continue;
        };
        let defined = file
            .functions
            .iter()
            .any(|f| f.class.is_none() && &f.name == name);
        if !defined {
            problems.push(format!(
                "case factory `{name}` is not a top-level function of {}",
                show(path)
            ));
        }
    }
    problems
}

/// The same test as the linker's root search: a Module class the pattern names (or a module it
/// names holding one), or, for a pattern without wildcards, a function it names exactly.
fn roots_something(project: &Project<'_>, pattern: &RootPattern) -> bool {
    project.files.iter().enumerate().any(|(file_id, file)| {
        let module_matches = pattern.matches(&file.module);
        let class_matched = file.classes.iter().enumerate().any(|(idx, class)| {
            project.is_module_class((file_id as FileId, idx as u32))
                && ((module_matches && !class.qualname.contains('.'))
                    || pattern.matches(&format!(
                        "{}.{}",
                        file.module,
                        display_qualname(&class.qualname)
                    )))
        });
        // An exact name starts with its module: skip the other files' functions unformatted.
        class_matched
            || (pattern.names_functions()
                && pattern.text.starts_with(file.module.as_str())
                && (file.function_by_name.keys().any(|qualname| {
                    pattern.matches(&format!("{}.{}", file.module, display_qualname(qualname)))
                }) || project
                    .inherited_method_root(file_id as FileId, pattern)
                    .is_some()))
    })
}

/// The qualified names nearest to a pattern (edit distance). A pattern with wildcards is compared
/// by its literal leading segments (`mymodel.**` against `mymodels`), and the suggestion keeps its
/// wildcard tail (`mymodels.**`). Runs only when a pattern failed, over names the project has.
fn suggestions(project: &Project<'_>, pattern: &RootPattern) -> Vec<String> {
    let segments: Vec<&str> = pattern.text.split('.').collect();
    let literal = segments
        .iter()
        .take_while(|s| !s.contains(['*', '?', '[']))
        .count();
    let (head, tail) = segments.split_at(literal);
    let head = head.join(".");
    let mut names: HashSet<String> = HashSet::new();
    for (file_id, file) in project.files.iter().enumerate() {
        if file.module.is_empty() {
            continue;
        }
        // Only names a pattern could root: modules holding an nn.Module, the Modules themselves.
        for (idx, class) in file.classes.iter().enumerate() {
            if project.is_module_class((file_id as FileId, idx as u32)) {
                names.insert(file.module.clone());
                names.insert(format!(
                    "{}.{}",
                    file.module,
                    display_qualname(&class.qualname)
                ));
            }
        }
        if pattern.names_functions() {
            for qualname in file.function_by_name.keys() {
                names.insert(format!("{}.{}", file.module, display_qualname(qualname)));
            }
        }
    }
    let mut scored: Vec<(usize, String)> = names
        .into_iter()
        .filter_map(|name| {
            let prefix = if tail.is_empty() {
                name
            } else {
                let parts: Vec<&str> = name.split('.').collect();
                if parts.len() < literal.max(1) {
                    return None;
                }
                parts[..literal].join(".")
            };
            let distance = edit_distance(&head, &prefix);
            let suggestion = if tail.is_empty() {
                prefix
            } else if literal == 0 {
                return None;
            } else {
                format!("{prefix}.{}", tail.join("."))
            };
            Some((distance, suggestion))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .filter(|(_, s)| s != &pattern.text)
        .take(SUGGESTIONS)
        .map(|(_, s)| format!("`{s}`"))
        .collect()
}

/// Levenshtein distance over characters (two rows).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// The nn.Module `forward`s defined in `reported` files that the computed region does not hold.
pub fn unreached_forwards(
    project: &Project<'_>,
    reported: &dyn Fn(&Path) -> bool,
) -> Vec<Unreached> {
    let mut found = Vec::new();
    for (file_id, file) in project.files.iter().enumerate() {
        if !reported(&file.path) {
            continue;
        }
        let file_id = file_id as FileId;
        for (idx, function) in file.functions.iter().enumerate() {
            let Some(class) = &function.class else {
                continue;
            };
            if function.name != "forward"
                || project.in_region.contains(&(file_id, idx as u32))
                || !file
                    .class_by_name
                    .get(class)
                    .is_some_and(|&c| project.is_module_class((file_id, c)))
            {
                continue;
            }
            found.push(Unreached {
                name: format!("{}.{class}.forward", file.module)
                    .trim_start_matches('.')
                    .to_owned(),
                path: file.path.clone(),
                line: function.line,
            });
        }
    }
    found.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    found
}

fn show(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("mymodel", "mymodels"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
