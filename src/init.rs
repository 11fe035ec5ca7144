//! `graphbreak init`: a starter configuration for a project — `[tool.graphbreak]` with the torch
//! floor found in the project's requirements and compile roots proposed from its own
//! `torch.compile` calls — and a runnable `compile_cases.py` template for `graphbreak check`.
//! It never overwrites: an existing `[tool.graphbreak]`, `graphbreak.toml` or cases file is left
//! as it is and reported.

use crate::config::{TorchVersion, torch_floor_from_requirement};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct InitArgs {
    /// The project directory (default: the current directory).
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Print the proposed configuration and cases file instead of writing them.
    #[arg(long)]
    print: bool,
    /// Where to write the cases template, relative to the project directory.
    #[arg(long, value_name = "FILE", default_value = "compile_cases.py")]
    cases: PathBuf,
}

/// Where the torch floor came from, e.g. "`torch>=2.2` in requirements.txt".
struct Floor {
    version: TorchVersion,
    origin: String,
    /// Read from `[project].dependencies`, which scan already reads by itself.
    from_project_table: bool,
}

/// A `torch.compile` target found in the project, by qualified name.
struct CompileRoot {
    qualified: String,
    /// `path:line` of the compile call or decorator, for the comment next to the proposal.
    site: String,
}

pub fn run(args: &InitArgs) -> ExitCode {
    match init(args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("graphbreak: error: {message}");
            ExitCode::from(2)
        }
    }
}

fn init(args: &InitArgs) -> Result<ExitCode, String> {
    let dir = crate::scan::discover::absolute(&args.dir);
    if !dir.is_dir() {
        return Err(format!("{}: not a directory", args.dir.display()));
    }
    let pyproject_path = dir.join("pyproject.toml");
    let dedicated_path = dir.join("graphbreak.toml");
    let pyproject = match std::fs::read_to_string(&pyproject_path) {
        Ok(text) => Some(text),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(format!("{}: cannot read: {err}", pyproject_path.display())),
    };
    let pyproject_table = match &pyproject {
        Some(text) => Some(text.parse::<toml::Table>().map_err(|e| {
            format!(
                "{}: invalid TOML, nothing written: {}",
                pyproject_path.display(),
                e.message()
            )
        })?),
        None => None,
    };
    let floor = torch_floor(&dir, pyproject_table.as_ref());
    // The parse and the AST's drop recurse per nesting level: give them the scan workers' stack.
    let roots = {
        let dir = dir.clone();
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || compile_roots(&dir))
            .map_err(|e| format!("cannot start a thread: {e}"))?
            .join()
            .map_err(|_| "finding compile roots failed".to_owned())??
    };
    let cases_rel = args.cases.to_string_lossy().replace('\\', "/");
    let use_pyproject = pyproject.is_some();
    let covering = covering_patterns(&dir, &roots);
    let config = config_text(floor.as_ref(), &roots, &covering, &cases_rel, use_pyproject);
    let cases = cases_template(&roots, &cases_rel);

    if args.print {
        let target = if use_pyproject {
            "pyproject.toml"
        } else {
            "graphbreak.toml"
        };
        println!("# --- {target} ---\n{config}\n# --- {cases_rel} ---\n{cases}");
        return Ok(ExitCode::SUCCESS);
    }

    let mut unchanged = Vec::new();
    let mut written = Vec::new();
    let already_configured = dedicated_path.exists()
        || pyproject_table
            .as_ref()
            .and_then(|t| t.get("tool"))
            .and_then(|t| t.get("graphbreak"))
            .is_some();
    if already_configured {
        let which = if dedicated_path.exists() {
            "graphbreak.toml exists"
        } else {
            "pyproject.toml already has [tool.graphbreak]"
        };
        unchanged.push(format!("{which}; configuration left unchanged"));
    } else if let Some(text) = &pyproject {
        let mut updated = text.clone();
        if !updated.is_empty() && !updated.ends_with('\n') {
            updated.push('\n');
        }
        updated.push('\n');
        updated.push_str(&config);
        // Appending must leave a file that still parses the same; refuse rather than break it.
        updated.parse::<toml::Table>().map_err(|e| {
            format!(
                "{}: appending [tool.graphbreak] would not parse ({}); nothing written",
                pyproject_path.display(),
                e.message()
            )
        })?;
        std::fs::write(&pyproject_path, updated)
            .map_err(|e| format!("{}: cannot write: {e}", pyproject_path.display()))?;
        written.push("pyproject.toml: added [tool.graphbreak]".to_owned());
    } else {
        std::fs::write(&dedicated_path, &config)
            .map_err(|e| format!("{}: cannot write: {e}", dedicated_path.display()))?;
        written.push("graphbreak.toml (no pyproject.toml here)".to_owned());
    }
    let cases_path = dir.join(&args.cases);
    if cases_path.exists() {
        unchanged.push(format!("{cases_rel} exists; left unchanged"));
    } else {
        if let Some(parent) = cases_path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&cases_path, &cases)
            .map_err(|e| format!("{}: cannot write: {e}", cases_path.display()))?;
        written.push(format!(
            "{cases_rel}: a case template for `graphbreak check`"
        ));
    }
    for line in &written {
        eprintln!("graphbreak: wrote {line}");
    }
    for line in &unchanged {
        eprintln!("graphbreak: {line}");
    }
    match &floor {
        Some(floor) => eprintln!(
            "graphbreak: torch floor {} (from {})",
            floor.version, floor.origin
        ),
        None => eprintln!("graphbreak: no torch requirement found; set torch-version by hand"),
    }
    eprintln!(
        "graphbreak: {} torch.compile target(s) found in the project; roots: {}",
        roots.len(),
        if covering.is_empty() {
            "none (every nn.Module forward is a root)".to_owned()
        } else {
            covering.join(", ")
        }
    );
    if !written.is_empty() {
        eprintln!(
            "{}",
            next_steps(&cases_rel, pyproject_path.exists(), !covering.is_empty())
        );
    }
    Ok(if written.is_empty() {
        // Nothing to do is not success for a script that expected a fresh configuration.
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The torch floor from `[project].dependencies`, then optional dependencies, then the usual
/// requirements files.
fn torch_floor(dir: &Path, pyproject: Option<&toml::Table>) -> Option<Floor> {
    let project = pyproject.and_then(|t| t.get("project"));
    let strings = |value: Option<&toml::Value>| -> Vec<String> {
        value
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    for requirement in strings(project.and_then(|p| p.get("dependencies"))) {
        if let Some(Some(version)) = torch_floor_from_requirement(&requirement) {
            return Some(Floor {
                version,
                origin: format!("`{requirement}` in pyproject.toml [project].dependencies"),
                from_project_table: true,
            });
        }
    }
    let optional = project
        .and_then(|p| p.get("optional-dependencies"))
        .and_then(|o| o.as_table());
    for (extra, list) in optional.into_iter().flatten() {
        for requirement in strings(Some(list)) {
            if let Some(Some(version)) = torch_floor_from_requirement(&requirement) {
                return Some(Floor {
                    version,
                    origin: format!(
                        "`{requirement}` in pyproject.toml [project.optional-dependencies].{extra}"
                    ),
                    from_project_table: false,
                });
            }
        }
    }
    for name in [
        "requirements.txt",
        "requirements.in",
        "requirements/base.txt",
        "requirements-dev.txt",
        "setup.cfg",
    ] {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
            continue;
        };
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            // setup.cfg lists requirements indented under `install_requires =`.
            let line = line
                .trim_start_matches("install_requires")
                .trim_start_matches(['=', ' ']);
            if let Some(Some(version)) = torch_floor_from_requirement(line) {
                return Some(Floor {
                    version,
                    origin: format!("`{line}` in {name}"),
                    from_project_table: false,
                });
            }
        }
    }
    None
}

/// What to do after `init`, in order (printed once something was written). Without a pyproject.toml
/// `check` finds no `[tool.graphbreak.check]` cases, so the steps name the cases file; the unreached
/// forwards are counted only when roots are configured.
fn next_steps(cases: &str, has_pyproject: bool, has_roots: bool) -> String {
    let check = if has_pyproject {
        "graphbreak check".to_owned()
    } else {
        format!("graphbreak check {cases}")
    };
    let mut steps = format!(
        "\nNext steps:\n  \
         1. graphbreak scan                      # static findings, seconds\n  \
         2. edit {cases}: build your model and example inputs in each case_* (they fail until you do)\n  \
         3. {check:<36} # compiles each case for real under your torch\n  \
         4. {check} --output-format html --output check-report.html  # a report to open in a browser"
    );
    if has_roots {
        steps.push_str(
            "\n  5. graphbreak scan --show-unreached     # nn.Module forwards the roots do not reach",
        );
    }
    steps
}

/// Roots that cover the project's models rather than only the ones compiled today: one
/// `top.**` per top-level package holding a compile target (a new model module there is
/// reached without editing the configuration). A pattern that would name no nn.Module class
/// (scan refuses those) is left out; none left means no roots: every forward is one.
fn covering_patterns(dir: &Path, roots: &[CompileRoot]) -> Vec<String> {
    let mut tops: Vec<String> = roots
        .iter()
        .filter_map(|r| {
            r.qualified
                .split_once('.')
                .map(|(top, _)| format!("{top}.**"))
        })
        .collect();
    tops.sort();
    tops.dedup();
    tops.into_iter()
        .filter(|pattern| {
            crate::scan::run(&crate::scan::ScanOptions {
                paths: vec![dir.to_path_buf()],
                no_config: true,
                select: Some(vec!["E001".to_owned()]),
                roots: vec![pattern.clone()],
                ..Default::default()
            })
            .is_ok()
        })
        .collect()
}

fn config_text(
    floor: Option<&Floor>,
    roots: &[CompileRoot],
    covering: &[String],
    cases: &str,
    in_pyproject: bool,
) -> String {
    let mut text = String::new();
    if in_pyproject {
        text.push_str("[tool.graphbreak]\n");
    }
    text.push_str(
        "# Written by `graphbreak init`. Keys: graphbreak's docs/configuration.md.\n\
         select = [\"ALL\"]\n\
         ignore = []\n\
         # per-file-ignores = { \"tests/*\" = [\"SY\"] }\n\
         exclude = []\n",
    );
    match floor {
        Some(floor) if floor.from_project_table => text.push_str(&format!(
            "# The torch floor ({}) is read from {}; set this only to override it.\n# torch-version = \"{}\"\n",
            floor.version, floor.origin, floor.version
        )),
        Some(floor) => text.push_str(&format!(
            "torch-version = \"{}\"  # the oldest torch you support: {}\n",
            floor.version, floor.origin
        )),
        None => text.push_str(
            "# No torch requirement found: set the oldest torch you support (VR001 flags newer APIs).\n# torch-version = \"2.4\"\n",
        ),
    }
    // The loader rejects unknown keys: `roots` is written active only once it knows the key (so
    // a written configuration never makes scan exit 2), commented out before.
    let roots_prefix = if loader_accepts_roots() { "" } else { "# " };
    text.push_str(
        "# Compile roots: what this project compiles; only code they reach is reported, and scan's\n\
         # summary counts the nn.Module forwards they leave out (`graphbreak scan --show-unreached`).\n",
    );
    if !roots.is_empty() {
        text.push_str(
            "# torch.compile targets found (narrower roots, if only these are ever compiled):\n",
        );
        for root in roots {
            text.push_str(&format!("#   {}  ({})\n", root.qualified, root.site));
        }
    }
    if covering.is_empty() {
        text.push_str(
            "# No roots: every nn.Module forward in the project is one. To narrow, name your models:\n# roots = [\"mypkg.models.**\"]\n",
        );
    } else {
        let names: Vec<String> = covering.iter().map(|p| format!("\"{p}\"")).collect();
        text.push_str(&format!(
            "# Every nn.Module of these packages, so a new model module is covered too:\n{roots_prefix}roots = [{}]\n",
            names.join(", ")
        ));
    }
    let check_header = if in_pyproject {
        "[tool.graphbreak.check]"
    } else {
        "# `graphbreak check` reads its cases from pyproject.toml; without one, run\n# `graphbreak check compile_cases.py`. In a pyproject.toml this would be:\n# [tool.graphbreak.check]"
    };
    let prefix = if in_pyproject { "" } else { "# " };
    text.push_str(&format!(
        "\n{check_header}\n\
         {prefix}cases = [\"{cases}\"]  # every top-level `def case_*` in the file\n\
         {prefix}device = \"auto\"          # cuda when available\n\
         {prefix}timeout = 600            # seconds per case\n\
         {prefix}# baseline = \"graphbreak-check-baseline.json\"  # written by `graphbreak check --write-baseline`\n"
    ));
    text
}

/// Whether `[tool.graphbreak]` accepts `roots` in this build (added with the compile-roots work).
fn loader_accepts_roots() -> bool {
    toml::from_str::<crate::config::RawSettings>("roots = [\"pkg.*\"]").is_ok()
}

/// The cases file: one case per compile target found (up to three), each importing the user's
/// model and failing with a clear message until its arguments and inputs are filled in — a
/// placeholder model would let the first `check` report "ok" without touching the user's code.
fn cases_template(roots: &[CompileRoot], cases: &str) -> String {
    let mut body = String::new();
    for root in roots.iter().take(3) {
        let (module, name) = root
            .qualified
            .rsplit_once('.')
            .unwrap_or(("", &root.qualified));
        let import = if module.is_empty() {
            format!("import {name}")
        } else {
            format!("from {module} import {name}")
        };
        body.push_str(&format!(
            r#"

def case_{case}():
    """`{qualified}`, compiled at {site}: the model and one batch of inputs at a realistic shape."""
    {import}

    raise NotImplementedError(
        "{cases}: set {name}'s arguments and example_args in case_{case}, then delete this raise"
    )
    torch.manual_seed(0)
    model = {name}()  # your constructor arguments
    example_args = (torch.randn(8, 32),)  # one batch, as the model's forward takes it
    return model, example_args
"#,
            case = snake_case(name),
            qualified = root.qualified,
            site = root.site,
        ));
    }
    if body.is_empty() {
        body.push_str(&format!(
            r#"

def case_model():
    """Your model and one batch of inputs at a realistic shape (no torch.compile call was found)."""
    # from mypkg.models import MyModel

    raise NotImplementedError(
        "{cases}: import your model, build it and example inputs in case_model, then delete this raise"
    )
    torch.manual_seed(0)
    return MyModel(), (torch.randn(8, 32),)  # noqa: F821 (until the import above is real)
"#
        ));
    }
    format!(
        r#""""Compile cases for `graphbreak check` (written by `graphbreak init`).

Each top-level `case_*` function is one case. It returns `(model, example_args)`, or a dict with
`model`, `args`, and optionally `inputs` (a list of argument tuples: a shape schedule that shows
recompiles), `loss` (training mode: forward + backward, gradients compared, e.g.
`"loss": lambda out: out.pow(2).mean()`), `compile` (torch.compile options for this case),
`dtype` (autocast), `atol` / `rtol`.
`graphbreak check` runs each case in its own process under your torch and reports graph breaks,
recompiles, compile time, eager vs compiled ms/step and parity.

Each case below fails until you fill it in: a check never passes on a model that is not yours.
"""

import torch
{body}"#
    )
}

/// `DetectorHead` → `detector_head`, `step` → `step`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            out.push('_');
        }
    }
    out
}

/// The project's own `torch.compile` targets: `torch.compile(X)`, `torch.compile(X(...))`,
/// `torch.compile(model)` where `model = X(...)` in the same scope (also `self.model`), `@torch.compile`,
/// and `model.compile()`; each resolved to a project class or function by qualified name.
fn compile_roots(dir: &Path) -> Result<Vec<CompileRoot>, String> {
    let options = crate::scan::ScanOptions {
        paths: vec![dir.to_path_buf()],
        no_config: true,
        ..Default::default()
    };
    let files = crate::scan::discover::discover(&options, None)?;
    let project_modules: HashSet<String> = files.iter().map(|f| f.module.clone()).collect();
    let top_level: HashSet<&str> = project_modules
        .iter()
        .map(|m| m.split('.').next().unwrap_or(""))
        .collect();
    let mut roots: BTreeMap<String, String> = BTreeMap::new();
    for file in &files {
        let Ok(source) = crate::source::read_source(&file.path) else {
            continue;
        };
        let parsed = ruff_python_parser::parse_unchecked_source(&source, ast::PySourceType::Python);
        let package = if file.is_package_init {
            file.module.clone()
        } else {
            file.module
                .rsplit_once('.')
                .map(|(p, _)| p.to_owned())
                .unwrap_or_default()
        };
        let mut finder = RootFinder {
            module: &file.module,
            package: &package,
            bindings: HashMap::new(),
            scopes: vec![HashMap::new()],
            class_attrs: HashMap::new(),
            class_stack: Vec::new(),
            qualname: Vec::new(),
            found: Vec::new(),
            depth: 0,
        };
        finder.collect_bindings(&parsed.syntax().body);
        finder.visit_body(&parsed.syntax().body);
        let lines = crate::source::LineIndex::new(&source);
        let display = file
            .path
            .strip_prefix(dir)
            .unwrap_or(&file.path)
            .to_string_lossy()
            .replace('\\', "/");
        for (qualified, offset) in finder.found {
            let first = qualified.split('.').next().unwrap_or("");
            if !top_level.contains(first) {
                continue;
            }
            let row = lines.location(&source, offset).row;
            roots
                .entry(qualified)
                .or_insert_with(|| format!("{display}:{row}"));
        }
    }
    Ok(roots
        .into_iter()
        .map(|(qualified, site)| CompileRoot { qualified, site })
        .collect())
}

/// Walks one module, recording the qualified names of what it compiles (with the byte offset of
/// the compile site).
struct RootFinder<'m> {
    module: &'m str,
    package: &'m str,
    /// Module-level names: imports (→ dotted target) and definitions (→ `module.Name`).
    bindings: HashMap<String, String>,
    /// Per function scope: local name → the qualified class it was assigned an instance of.
    scopes: Vec<HashMap<String, String>>,
    /// Per class: `self.<attr>` → qualified class assigned to it in any method.
    class_attrs: HashMap<String, HashMap<String, String>>,
    class_stack: Vec<String>,
    qualname: Vec<String>,
    found: Vec<(String, u32)>,
    depth: u32,
}

/// Nesting bound: hostile files nest thousands deep; real code never this much.
const MAX_DEPTH: u32 = 200;

impl RootFinder<'_> {
    fn collect_bindings(&mut self, body: &[Stmt]) {
        for stmt in body {
            match stmt {
                Stmt::Import(import) => {
                    for alias in &import.names {
                        let target = alias.name.id.to_string();
                        let bound = match &alias.asname {
                            Some(asname) => asname.id.to_string(),
                            None => target.split('.').next().unwrap_or("").to_owned(),
                        };
                        let target = if alias.asname.is_some() {
                            target
                        } else {
                            bound.clone()
                        };
                        self.bindings.insert(bound, target);
                    }
                }
                Stmt::ImportFrom(import) => {
                    let module = import.module.as_ref().map(|m| m.id.as_str()).unwrap_or("");
                    let base = if import.level == 0 {
                        module.to_owned()
                    } else {
                        let mut parts: Vec<&str> =
                            self.package.split('.').filter(|p| !p.is_empty()).collect();
                        for _ in 1..import.level {
                            parts.pop();
                        }
                        if !module.is_empty() {
                            parts.push(module);
                        }
                        parts.join(".")
                    };
                    for alias in &import.names {
                        if alias.name.id.as_str() == "*" {
                            continue;
                        }
                        let bound = alias.asname.as_ref().unwrap_or(&alias.name).id.to_string();
                        self.bindings
                            .insert(bound, format!("{base}.{}", alias.name.id));
                    }
                }
                Stmt::FunctionDef(def) => {
                    self.bindings.insert(
                        def.name.id.to_string(),
                        format!("{}.{}", self.module, def.name.id),
                    );
                }
                Stmt::ClassDef(class) => {
                    self.bindings.insert(
                        class.name.id.to_string(),
                        format!("{}.{}", self.module, class.name.id),
                    );
                }
                Stmt::If(stmt_if) => {
                    self.collect_bindings(&stmt_if.body);
                    for clause in &stmt_if.elif_else_clauses {
                        self.collect_bindings(&clause.body);
                    }
                }
                Stmt::Try(stmt_try) => {
                    self.collect_bindings(&stmt_try.body);
                    self.collect_bindings(&stmt_try.orelse);
                }
                _ => {}
            }
        }
    }

    /// A dotted name for `expr` (`torch.compile`, `pkg.models.Net`) through this module's bindings.
    fn dotted(&self, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Name(name) => self.bindings.get(name.id.as_str()).cloned(),
            Expr::Attribute(attribute) => Some(format!(
                "{}.{}",
                self.dotted(&attribute.value)?,
                attribute.attr.id
            )),
            _ => None,
        }
    }

    fn is_torch_compile(&self, expr: &Expr) -> bool {
        self.dotted(expr).as_deref() == Some("torch.compile")
    }

    /// What a compile call's argument refers to: a class or function, an instance `X(...)`, or a
    /// local / `self.` name bound to such an instance.
    fn target_of(&self, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Call(call) => self.dotted(&call.func),
            Expr::Name(name) => self
                .scopes
                .iter()
                .rev()
                .find_map(|scope| scope.get(name.id.as_str()).cloned())
                .or_else(|| self.dotted(expr)),
            Expr::Attribute(attribute) => {
                if let Expr::Name(base) = &*attribute.value
                    && base.id.as_str() == "self"
                    && let Some(class) = self.class_stack.last()
                    && let Some(target) = self
                        .class_attrs
                        .get(class)
                        .and_then(|attrs| attrs.get(attribute.attr.id.as_str()))
                {
                    return Some(target.clone());
                }
                self.dotted(expr)
            }
            _ => None,
        }
    }

    /// Records `self.x = X(...)` for every method of a class before its methods are walked, so
    /// `torch.compile(self.x)` in `forward` finds what `__init__` assigned.
    fn collect_self_attrs(&mut self, class: &str, body: &[Stmt]) {
        for stmt in body {
            let Stmt::FunctionDef(def) = stmt else {
                continue;
            };
            for inner in &def.body {
                if let Stmt::Assign(assign) = inner
                    && let [Expr::Attribute(target)] = assign.targets.as_slice()
                    && let Expr::Name(base) = &*target.value
                    && base.id.as_str() == "self"
                    && let Expr::Call(call) = &*assign.value
                    && let Some(qualified) = self.dotted(&call.func)
                {
                    self.class_attrs
                        .entry(class.to_owned())
                        .or_default()
                        .insert(target.attr.id.to_string(), qualified);
                }
            }
        }
    }
}

impl<'a> Visitor<'a> for RootFinder<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        match stmt {
            Stmt::FunctionDef(def) => {
                let compiled = def.decorator_list.iter().any(|decorator| {
                    let expr = match &decorator.expression {
                        Expr::Call(call) => &*call.func,
                        other => other,
                    };
                    self.is_torch_compile(expr)
                });
                self.qualname.push(def.name.id.to_string());
                if compiled {
                    let qualified = format!("{}.{}", self.module, self.qualname.join("."));
                    self.found.push((qualified, def.range().start().into()));
                }
                self.scopes.push(HashMap::new());
                visitor::walk_stmt(self, stmt);
                self.scopes.pop();
                self.qualname.pop();
            }
            Stmt::ClassDef(class) => {
                self.qualname.push(class.name.id.to_string());
                let key = self.qualname.join(".");
                self.collect_self_attrs(&key, &class.body);
                self.class_stack.push(key);
                visitor::walk_stmt(self, stmt);
                self.class_stack.pop();
                self.qualname.pop();
            }
            Stmt::Assign(assign) => {
                if let [Expr::Name(target)] = assign.targets.as_slice()
                    && let Expr::Call(call) = &*assign.value
                {
                    // `model = torch.compile(Net())` binds the compiled module, still a Net.
                    let instance = if self.is_torch_compile(&call.func) {
                        call.arguments.args.first().and_then(|a| self.target_of(a))
                    } else {
                        self.dotted(&call.func)
                    };
                    if let Some(qualified) = instance
                        && let Some(scope) = self.scopes.last_mut()
                    {
                        scope.insert(target.id.to_string(), qualified);
                    }
                }
                visitor::walk_stmt(self, stmt);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        if let Expr::Call(call) = expr {
            let offset: u32 = call.range().start().into();
            if self.is_torch_compile(&call.func) {
                if let Some(target) = call.arguments.args.first().and_then(|a| self.target_of(a)) {
                    self.found.push((target, offset));
                }
            } else if let Expr::Attribute(attribute) = &*call.func
                && attribute.attr.id.as_str() == "compile"
                && call.arguments.args.is_empty()
                && let Some(target) = self.target_of(&attribute.value)
            {
                // `model.compile()` (nn.Module.compile, torch ≥ 2.2) compiles the module in place.
                self.found.push((target, offset));
            }
        }
        visitor::walk_expr(self, expr);
        self.depth -= 1;
    }
}
