use crate::config::TorchVersion;
use crate::rules::declare_rule;
use crate::scan::analyze::Analyzer;
use crate::semantic::summary::Scope;
use ruff_python_ast as ast;
use ruff_text_size::Ranged;
use std::collections::{HashMap, HashSet};

declare_rule! {
    /// ## What it does
    /// Flags uses of torch APIs that do not exist on the oldest torch the project declares
    /// (`torch>=2.2` in `[project].dependencies`, or `torch-version` in `[tool.graphbreak]`), using
    /// the table in `rules/data/torch_api_versions.toml`.
    ///
    /// ## Why is this bad?
    /// `torch.compiler.is_compiling` appeared in torch 2.3 and `torch.compiler.is_exporting` in 2.7.
    /// A package that allows `torch>=2.2` and calls them raises `AttributeError` on its own floor —
    /// usually only on the compile path, which nobody tests on old torch. Uses behind
    /// `hasattr(...)`, `getattr(..., default)` or `try: ... except (ImportError, AttributeError)`
    /// are not flagged (but see CR002: a `getattr` fallback can pick the crashing branch).
    ///
    /// ## Example
    /// ```python
    /// # pyproject.toml: dependencies = ["torch>=2.2"]
    /// if torch.compiler.is_compiling():
    ///     ...
    /// ```
    ///
    /// ## Fix
    /// Raise the floor to the version that has the API, or probe for it:
    /// ```python
    /// is_compiling = getattr(torch.compiler, "is_compiling", torch._dynamo.is_compiling)
    /// ```
    ///
    /// ## Torch versions
    /// Applies when the declared floor is older than the API (see the data table).
    pub struct ApiNewerThanFloor {
        code: "VR001",
        name: "api-newer-than-floor",
        family: Version,
        torch_versions: "below each API's version",
        fix_available: false,
        summary: "torch API used that does not exist on the project's declared torch floor",
    }
}

/// The torch API availability table, from `rules/data/torch_api_versions.toml`.
pub struct ApiTable {
    added: HashMap<String, TorchVersion>,
    /// Last path segments of every API, to reject most attributes without building a string.
    last_segments: HashSet<String>,
}

const TABLE_SOURCE: &str = include_str!("../../rules/data/torch_api_versions.toml");

#[derive(serde::Deserialize)]
struct TableFile {
    apis: HashMap<String, TableEntry>,
}

#[derive(serde::Deserialize)]
struct TableEntry {
    added: String,
    #[serde(default = "default_true")]
    verified: bool,
}

fn default_true() -> bool {
    true
}

impl ApiTable {
    pub fn load() -> ApiTable {
        let file: TableFile = toml::from_str(TABLE_SOURCE)
            .expect("rules/data/torch_api_versions.toml is valid (tested)");
        let mut added = HashMap::new();
        let mut last_segments = HashSet::new();
        for (name, entry) in file.apis {
            if !entry.verified {
                continue;
            }
            let Some(version) = TorchVersion::parse(&entry.added) else {
                continue;
            };
            last_segments.insert(name.rsplit('.').next().unwrap_or(&name).to_owned());
            added.insert(name, version);
        }
        ApiTable {
            added,
            last_segments,
        }
    }

    pub fn added_in(&self, qualified: &str) -> Option<TorchVersion> {
        self.added.get(qualified).copied()
    }

    pub fn may_contain_last_segment(&self, segment: &str) -> bool {
        self.last_segments.contains(segment)
    }
}

pub fn check_attribute(analyzer: &mut Analyzer<'_>, attribute: &ast::ExprAttribute) {
    let Some(floor) = analyzer.ctx.torch_floor else {
        return;
    };
    if !analyzer
        .ctx
        .api_table
        .may_contain_last_segment(attribute.attr.id.as_str())
    {
        return;
    }
    let expr = ast::Expr::Attribute(attribute.clone());
    let Some(qualified) = analyzer.qualified(&expr) else {
        return;
    };
    check_name(analyzer, &qualified, floor, attribute.range());
}

pub fn check_import_from(
    analyzer: &mut Analyzer<'_>,
    import: &ast::StmtImportFrom,
    bindings: &[(String, String)],
) {
    let Some(floor) = analyzer.ctx.torch_floor else {
        return;
    };
    for (alias, (_, qualified)) in import.names.iter().zip(bindings) {
        check_name(analyzer, qualified, floor, alias.range());
    }
}

fn check_name(
    analyzer: &mut Analyzer<'_>,
    qualified: &str,
    floor: TorchVersion,
    range: ruff_text_size::TextRange,
) {
    let Some(added) = analyzer.ctx.api_table.added_in(qualified) else {
        return;
    };
    if added <= floor || analyzer.import_guard_depth > 0 {
        return;
    }
    if analyzer.is_probed(qualified) {
        return;
    }
    let origin = analyzer.ctx.torch_floor_origin.to_owned();
    analyzer.report(
        &ApiNewerThanFloor::META,
        range,
        format!("`{qualified}` was added in torch {added}, but the project supports torch {floor} ({origin})"),
        None,
        Scope::Anywhere,
        false,
    );
}
