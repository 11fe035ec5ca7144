use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::summary::Hazard;
use ruff_python_ast::Stmt;
use ruff_text_size::{Ranged, TextRange};

declare_rule! {
    /// ## What it does
    /// Flags an availability probe — an `import` inside `try: ... except ImportError:` (or
    /// `except Exception:` / a bare `except:`) — in code Dynamo traces (forward, compiled functions
    /// and what they call). Imports that cannot fail are not flagged: `torch`, the standard library,
    /// the project's own modules and relative imports.
    ///
    /// ## Why is this bad?
    /// When the module is missing, the import fails while Dynamo traces the frame: graph break
    /// `GB0069 Import failure`, and because it happens inside a `try` block Dynamo cannot split the
    /// frame — the whole function runs eagerly (measured on torch 2.11: 0 graphs). With the module
    /// installed the probe still re-runs on every trace. A real tabular-model library went from 2
    /// graphs to 43 fragments because of one such probe for an attention kernel.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, q, k, v):
    ///     try:
    ///         import flash_attn
    ///         use_flash = True
    ///     except ImportError:
    ///         use_flash = False
    /// ```
    ///
    /// ## Fix
    /// Probe once at import time and keep the answer in a module-level constant:
    /// ```python
    /// try:
    ///     import flash_attn
    ///     HAS_FLASH_ATTN = True
    /// except ImportError:
    ///     HAS_FLASH_ATTN = False
    /// ```
    ///
    /// ## Torch versions
    /// All versions with Dynamo (the GB0069 code exists from torch 2.7 on).
    pub struct ImportProbeInRegion {
        code: "BR002",
        name: "import-probe-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.0",
        fix_available: false,
        summary: "try/except ImportError probe inside traced code: a missing module makes Dynamo run the frame eagerly",
        hooks: { statement: check_statement },
    }
}

fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    match stmt {
        Stmt::Import(import) => {
            if let Some(alias) = import.names.first() {
                check_import(checker, stmt.range(), alias.name.id.as_str());
            }
        }
        // A relative import names the project's own code, which is always there.
        Stmt::ImportFrom(import) if import.level == 0 => {
            let module = checker.semantic().import_from_module(import);
            check_import(checker, stmt.range(), &module);
        }
        _ => {}
    }
}

fn check_import(checker: &mut Checker<'_>, range: TextRange, module: &str) {
    let semantic = checker.semantic();
    if !semantic.in_function() || !semantic.in_import_probe() {
        return;
    }
    // torch is loaded whenever this code runs, and the project's own modules are always there:
    // importing them cannot fail.
    let root = module.split('.').next().unwrap_or(module);
    if root == "torch" || TORCH.stdlib.contains(root) || semantic.is_project_dotted(module) {
        return;
    }
    let message = format!(
        "import probe for `{module}` inside traced code: if it fails, Dynamo hits GB0069 (Import failure) and runs this whole frame eagerly; probe once at module level"
    );
    checker.report(
        &ImportProbeInRegion::META,
        Finding::new(range, message)
            .with_hazard(Hazard::GraphBreak)
            .breaking_only_on_failure(),
    );
}
