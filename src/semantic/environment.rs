//! Classes of the Python environment the project runs in (its site-packages), read statically
//! from their source — never imported. A project class whose base lives in another installed
//! distribution (`class Net(SomePretrainedBase)`) is an `nn.Module` exactly when that base's own
//! chain of bases reaches one, and calling it runs the base's `forward`, which calls the
//! overrides the base names on `self` (`self.update(...)`, `self._step(...)`).
//!
//! Only what classification needs is read: per asked class, its bases and, per method, the names
//! it calls on `self`. torch's own classes are the generated tables' job (`data.rs`,
//! `torch_hooks.rs`), never looked up here. Without an environment nothing is read.
//!
//! Cost: one parse per environment module a project base names (memoised by dotted class name),
//! chains followed to depth ≤ 12.

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::data::TORCH;
use crate::config::TorchVersion;

/// What the project needs of an environment class.
#[derive(Debug, Default)]
pub struct EnvClass {
    /// Its chain of bases reaches `torch.nn.Module` (or a table's Module base).
    pub is_module: bool,
    /// `(method, name)`: a method of the class or of an environment base calls `self.name(...)`.
    pub self_calls: Vec<(String, String)>,
}

/// The site-packages directories of one environment, and the classes read from them.
pub struct Environment {
    site_dirs: Vec<PathBuf>,
    classes: Mutex<FxHashMap<String, Option<Arc<EnvClass>>>>,
}

const MAX_DEPTH: u32 = 12;

impl Environment {
    /// The environment at `path`: a virtual environment (its `lib/python3*/site-packages`, or
    /// `Lib/site-packages` on Windows) or a site-packages directory itself. `Err` when neither.
    pub fn open(path: &Path) -> Result<Environment, String> {
        let mut site_dirs = Vec::new();
        for lib in ["lib", "lib64"] {
            if let Ok(entries) = std::fs::read_dir(path.join(lib)) {
                let mut found: Vec<PathBuf> = entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("python3"))
                    })
                    .map(|p| p.join("site-packages"))
                    .filter(|p| p.is_dir())
                    .collect();
                found.sort();
                for dir in found {
                    if !site_dirs.contains(&dir) {
                        site_dirs.push(dir);
                    }
                }
            }
        }
        let windows = path.join("Lib").join("site-packages");
        if windows.is_dir() {
            site_dirs.push(windows);
        }
        if site_dirs.is_empty() && path.is_dir() && path.ends_with("site-packages") {
            site_dirs.push(path.to_path_buf());
        }
        // `.pth` files put more directories on `sys.path` (an editable install, a base
        // environment shared through a path file): searched after the site directories.
        let listed: Vec<PathBuf> = site_dirs.iter().flat_map(|site| pth_dirs(site)).collect();
        for dir in listed {
            if !site_dirs.contains(&dir) {
                site_dirs.push(dir);
            }
        }
        if site_dirs.is_empty() {
            return Err(format!(
                "{} is neither a Python environment (no lib/python3*/site-packages) nor a \
                 site-packages directory",
                path.display()
            ));
        }
        Ok(Environment {
            site_dirs,
            classes: Mutex::new(FxHashMap::default()),
        })
    }

    /// The torch installed in the environment (`torch-2.11.0.dist-info`, or `+cu130` builds),
    /// as major.minor, with the directory it was found in.
    pub fn installed_torch(&self) -> Option<(TorchVersion, &Path)> {
        self.site_dirs.iter().find_map(|site| {
            let entries = std::fs::read_dir(site).ok()?;
            entries.flatten().find_map(|entry| {
                let name = entry.file_name();
                let version = name
                    .to_str()?
                    .strip_prefix("torch-")?
                    .strip_suffix(".dist-info")?;
                Some((TorchVersion::parse(version)?, site.as_path()))
            })
        })
    }

    /// The environment class with this dotted name (`pkg.mod.Class`), when its source is found.
    pub fn class(&self, dotted: &str) -> Option<Arc<EnvClass>> {
        self.class_at(dotted, &mut Vec::new())
    }

    /// `visiting`: the classes being read on this thread's chain (a cycle of re-exports ends
    /// there). Only finished answers are memoised, so a class another thread is still reading is
    /// read again, never taken for absent: the answer does not depend on the schedule.
    fn class_at(&self, dotted: &str, visiting: &mut Vec<String>) -> Option<Arc<EnvClass>> {
        // torch is the tables' (generated per torch version), never the environment's.
        if visiting.len() as u32 > MAX_DEPTH
            || dotted == "torch"
            || dotted.starts_with("torch.")
            || visiting.iter().any(|v| v == dotted)
        {
            return None;
        }
        if let Some(known) = self.classes.lock().ok()?.get(dotted) {
            return known.clone();
        }
        visiting.push(dotted.to_owned());
        let found = self.read_class(dotted, visiting).map(Arc::new);
        visiting.pop();
        self.classes
            .lock()
            .ok()?
            .insert(dotted.to_owned(), found.clone());
        found
    }

    fn read_class(&self, dotted: &str, visiting: &mut Vec<String>) -> Option<EnvClass> {
        let (module, name) = dotted.rsplit_once('.')?;
        let (path, is_package) = self.module_file(module)?;
        let source = std::fs::read_to_string(&path).ok()?;
        let parsed = ruff_python_parser::parse_unchecked_source(&source, ast::PySourceType::Python);
        let body = &parsed.syntax().body;
        let package = if is_package {
            module.to_owned()
        } else {
            module.rsplit_once('.').map_or("", |(p, _)| p).to_owned()
        };
        let mut imports = FxHashMap::default();
        collect_imports(body, &package, &mut imports);
        let Some(class) = find_class(body, name) else {
            // A re-export (`from .modeling import Base` in a package's `__init__`).
            let target = imports.get(name)?;
            return self.class_at(target, visiting).map(|c| EnvClass {
                is_module: c.is_module,
                self_calls: c.self_calls.clone(),
            });
        };
        let mut result = EnvClass::default();
        for base in class.bases() {
            let Some(base_dotted) = base_name(base, module, body, &imports) else {
                continue;
            };
            if TORCH.is_module_base(&base_dotted) {
                result.is_module = true;
                continue;
            }
            if let Some(inner) = self.class_at(&base_dotted, visiting) {
                result.is_module |= inner.is_module;
                for row in &inner.self_calls {
                    if !result.self_calls.contains(row) {
                        result.self_calls.push(row.clone());
                    }
                }
            }
        }
        for stmt in &class.body {
            if let Stmt::FunctionDef(def) = stmt {
                let mut calls = SelfCalls::default();
                calls.visit_body(&def.body);
                for name in calls.names {
                    let row = (def.name.id.to_string(), name);
                    if !result.self_calls.contains(&row) {
                        result.self_calls.push(row);
                    }
                }
            }
        }
        Some(result)
    }

    /// The source file of `module` in the first site-packages that has it, and whether it is a
    /// package's `__init__.py`.
    fn module_file(&self, module: &str) -> Option<(PathBuf, bool)> {
        let relative: PathBuf = module.split('.').collect();
        self.site_dirs.iter().find_map(|site| {
            let init = site.join(&relative).join("__init__.py");
            if init.is_file() {
                return Some((init, true));
            }
            let file = site.join(&relative).with_extension("py");
            file.is_file().then_some((file, false))
        })
    }
}

/// The directories a site directory's `.pth` files list, as `site.addpackage` reads them: one
/// path per line, relative to the site directory, kept when it exists; `#` comments and `import`
/// lines (code the interpreter runs, never run here) are skipped.
fn pth_dirs(site: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(site) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|ext| ext == "pth"))
        .collect();
    // `site` reads them in name order.
    files.sort();
    let mut dirs = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for line in text.lines() {
            let line = line.trim_end();
            if line.is_empty()
                || line.starts_with('#')
                || line.starts_with("import ")
                || line.starts_with("import\t")
            {
                continue;
            }
            let dir = site.join(line);
            if dir.is_dir() && !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

/// Names bound by the module's imports (also under `if`/`try`), to dotted targets.
fn collect_imports(body: &[Stmt], package: &str, out: &mut FxHashMap<String, String>) {
    for stmt in body {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    let full = alias.name.id.as_str();
                    match &alias.asname {
                        Some(asname) => {
                            out.entry(asname.id.to_string())
                                .or_insert_with(|| full.to_owned());
                        }
                        None => {
                            let first = full.split('.').next().unwrap_or(full);
                            out.entry(first.to_owned())
                                .or_insert_with(|| first.to_owned());
                        }
                    }
                }
            }
            Stmt::ImportFrom(import) => {
                let level = import.level as usize;
                let from = import.module.as_ref().map_or("", |m| m.id.as_str());
                let base = if level == 0 {
                    from.to_owned()
                } else {
                    let mut parts: Vec<&str> = if package.is_empty() {
                        Vec::new()
                    } else {
                        package.split('.').collect()
                    };
                    for _ in 1..level {
                        parts.pop();
                    }
                    if !from.is_empty() {
                        parts.push(from);
                    }
                    parts.join(".")
                };
                for alias in &import.names {
                    let name = alias.name.id.as_str();
                    if name == "*" {
                        continue;
                    }
                    let bound = alias.asname.as_ref().map_or(name, |a| a.id.as_str());
                    out.entry(bound.to_owned())
                        .or_insert_with(|| format!("{base}.{name}"));
                }
            }
            Stmt::If(stmt_if) => {
                collect_imports(&stmt_if.body, package, out);
                for clause in &stmt_if.elif_else_clauses {
                    collect_imports(&clause.body, package, out);
                }
            }
            Stmt::Try(stmt_try) => {
                collect_imports(&stmt_try.body, package, out);
                for handler in &stmt_try.handlers {
                    let ast::ExceptHandler::ExceptHandler(handler) = handler;
                    collect_imports(&handler.body, package, out);
                }
            }
            _ => {}
        }
    }
}

/// The module-level class `name` (also under `if`/`try`).
fn find_class<'b>(body: &'b [Stmt], name: &str) -> Option<&'b ast::StmtClassDef> {
    body.iter().find_map(|stmt| match stmt {
        Stmt::ClassDef(class) if class.name.id.as_str() == name => Some(class),
        Stmt::If(stmt_if) => find_class(&stmt_if.body, name).or_else(|| {
            stmt_if
                .elif_else_clauses
                .iter()
                .find_map(|c| find_class(&c.body, name))
        }),
        Stmt::Try(stmt_try) => find_class(&stmt_try.body, name),
        _ => None,
    })
}

/// A base expression as a dotted name: a class of the same module, an imported name, or an
/// attribute chain on one (`nn.Module`).
fn base_name(
    base: &Expr,
    module: &str,
    body: &[Stmt],
    imports: &FxHashMap<String, String>,
) -> Option<String> {
    match base {
        Expr::Name(name) => {
            let id = name.id.as_str();
            if find_class(body, id).is_some() {
                Some(format!("{module}.{id}"))
            } else {
                imports.get(id).cloned()
            }
        }
        Expr::Attribute(attr) => {
            let head = base_name(&attr.value, module, body, imports)?;
            Some(format!("{head}.{}", attr.attr.id))
        }
        _ => None,
    }
}

/// The names a method body calls on `self` (`self.name(...)`), nested functions excluded.
#[derive(Default)]
struct SelfCalls {
    names: Vec<String>,
}

impl<'b> Visitor<'b> for SelfCalls {
    fn visit_stmt(&mut self, stmt: &'b Stmt) {
        if matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            return;
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'b Expr) {
        if let Expr::Call(call) = expr
            && let Expr::Attribute(attr) = &*call.func
            && matches!(&*attr.value, Expr::Name(n) if n.id.as_str() == "self")
        {
            let name = attr.attr.id.to_string();
            if !self.names.contains(&name) {
                self.names.push(name);
            }
        }
        visitor::walk_expr(self, expr);
    }
}
