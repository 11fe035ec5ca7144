use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags, in code Dynamo traces, a `with` item whose value is a literal constant (`with 3:`,
    /// `with None:`, `with "name":`) or a local bound only to one (`ctx = None` then
    /// `with ctx:`, on every path that reaches the `with`). A constant passed in at a compiled
    /// call site is BR030's.
    ///
    /// ## Why is this bad?
    /// A constant has no `__enter__` / `__exit__`. Eagerly the `with` raises `TypeError`;
    /// under torch.compile Dynamo raises its graph-break exception first (measured on torch
    /// 2.11, `backend="eager"`, `fullgraph=True`: GB0142 "Unsupported context manager", for an
    /// int, a string, `None` and a local bound to an int), so the code path is broken either
    /// way — usually a placeholder (`ctx = None`) left where a real context manager
    /// (`contextlib.nullcontext()`) was meant.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     ctx = None
    ///     with ctx:                 # GB0142: graph break (TypeError eagerly)
    ///         return self.lin(x)
    /// ```
    ///
    /// ## Fix
    /// Use `contextlib.nullcontext()` for "no context", or the context manager that was meant.
    ///
    /// ## Torch versions
    /// Measured breaking on torch 2.2, 2.5, 2.8 and 2.11 (an int, a string, `None`, a local bound
    /// to an int; `BEFORE_WITH ConstantVariable` before 2.8).
    pub struct ConstantContextManager {
        code: "BR039",
        name: "constant-context-manager",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "`with` over a literal constant (or a local bound only to one) in traced code: not a context manager, graph break",
        hooks: { statement: check_statement },
    }
}

fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::With(with) = stmt else {
        return;
    };
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let mut found = Vec::new();
    for item in &with.items {
        let value = &item.context_expr;
        let constant = match value {
            Expr::Name(name) => {
                let values = semantic.local_values(name.id.as_str());
                !values.is_empty() && values.iter().all(|v| Expr::is_literal_expr(v))
            }
            other => Expr::is_literal_expr(other),
        };
        if constant {
            found.push(value.range());
        }
    }
    let label = super::graph_break_label("Unsupported context manager");
    // One statement, one finding: the first constant item.
    if let Some(range) = found.into_iter().next() {
        checker.report(
            &ConstantContextManager::META,
            Finding::new(
                range,
                format!(
                    "`with` over a constant in traced code: a constant is not a context manager, graph break under torch.compile ({label}; a TypeError eagerly); use contextlib.nullcontext() or the context manager meant"
                ),
            )
            .with_hazard(Hazard::GraphBreak),
        );
    }
}
