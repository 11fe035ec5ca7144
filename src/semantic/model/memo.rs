//! Memoized functions: `@functools.lru_cache` / `@functools.cache` run their body once per
//! distinct arguments in eager mode, so a cost of the body is not paid per call. (Dynamo ignores
//! the cache wrapper and traces the body into the graph — it warns so — where Inductor folds
//! host-built constants.)

use super::SemanticModel;
use ruff_python_ast::{self as ast, Expr};

impl<'a> SemanticModel<'a> {
    /// Is `def` decorated with `functools.lru_cache` (bare or called) or `functools.cache`?
    pub(crate) fn is_memoized(&self, def: &ast::StmtFunctionDef) -> bool {
        def.decorator_list.iter().any(|decorator| {
            let target = match &decorator.expression {
                Expr::Call(call) => &*call.func,
                other => other,
            };
            matches!(
                self.qualified(target).as_deref(),
                Some("functools.lru_cache" | "functools.cache")
            )
        })
    }

    /// Is the innermost function being visited memoized?
    pub fn in_memoized_function(&self) -> bool {
        self.current_function()
            .is_some_and(|idx| self.summary.functions[idx as usize].memoized)
    }
}
