use crate::config::TorchVersion;
use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use ruff_python_ast::{self as ast, Stmt};
use ruff_text_size::Ranged;

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
    /// are not flagged (but see CR002: a `getattr` fallback can pick the crashing branch). Nor are
    /// uses in a module that the project imports only after asserting a torch version at the top
    /// of the importing function (`assert TORCH_2_8, "..."` or `if not TORCH_2_8: raise ...`,
    /// with `TORCH_2_8 = check_version(TORCH_VERSION, "2.8.0")` or `= torch.__version__ >= "2.8"`
    /// at module level): that module never runs on the older torch (ultralytics' export backends).
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
        scope: Anywhere,
        torch_versions: "below each API's version",
        fix_available: false,
        summary: "torch API used that does not exist on the project's declared torch floor",
        hooks: { attribute: check_attribute, statement: check_statement },
    }
}

fn check_attribute(checker: &mut Checker<'_>, attribute: &ast::ExprAttribute) {
    let semantic = checker.semantic();
    let Some(floor) = semantic.torch_floor() else {
        return;
    };
    if !TORCH.api_may_end_with(attribute.attr.id.as_str()) {
        return;
    }
    let expr = ast::Expr::Attribute(attribute.clone());
    let Some(qualified) = semantic.qualified(&expr) else {
        return;
    };
    check_name(checker, &qualified, floor, attribute.range());
}

fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::ImportFrom(import) = stmt else {
        return;
    };
    let semantic = checker.semantic();
    let Some(floor) = semantic.torch_floor() else {
        return;
    };
    let bindings = semantic.import_from_bindings(import);
    for (alias, (_, qualified)) in import.names.iter().zip(&bindings) {
        check_name(checker, qualified, floor, alias.range());
    }
}

fn check_name(
    checker: &mut Checker<'_>,
    qualified: &str,
    floor: TorchVersion,
    range: ruff_text_size::TextRange,
) {
    let semantic = checker.semantic();
    let Some(added) = TORCH.api_added_in(qualified) else {
        return;
    };
    if added <= floor || semantic.in_feature_probe() || semantic.is_probed(qualified) {
        return;
    }
    let origin = semantic.torch_floor_origin();
    let message = format!(
        "`{qualified}` was added in torch {added}, but the project supports torch {floor} ({origin})"
    );
    // A module the project imports only after `assert TORCH_2_8` never runs below 2.8.
    checker.report(
        &ApiNewerThanFloor::META,
        Finding::new(range, message).holding_below(added),
    );
}
