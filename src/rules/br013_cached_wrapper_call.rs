use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast as ast;
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags calls, in code Dynamo traces, through an instance attribute that holds a
    /// `functools.lru_cache` / `functools.cache` wrapper: `self.build(n)` where a method of the
    /// class (or of a base class in the same file) set `self.build =
    /// functools.lru_cache(100)(self.build)` — a per-instance cache of a bound method — or
    /// `self.lookup = functools.cache(fn)`.
    ///
    /// ## Why is this bad?
    /// Dynamo does not trace the `__call__` of the wrapper object (torch 2.8 and 2.11: GB0156
    /// "Unsupported method call", "Dynamo does not know how to trace method `__call__` of class
    /// `_lru_cache_wrapper`"; torch 2.2 and 2.5 break on the same call). The graph ends at the
    /// call, the cached function runs eagerly, and a new graph starts after it. A function
    /// decorated with `@functools.lru_cache` at module or class level is different: torch 2.8
    /// and 2.11 trace through it (measured; torch 2.5 only a module-level one, torch 2.2
    /// neither), so it is not flagged here.
    ///
    /// ## Example
    /// ```python
    /// class Pattern:
    ///     def __init__(self, steps):
    ///         self.steps = steps
    ///         self.indexes = functools.lru_cache(16)(self.indexes)
    ///
    ///     def indexes(self, n):
    ///         return torch.arange(n) % self.steps
    /// ```
    ///
    /// ## Fix
    /// Compute the cached value outside the compiled region and pass it in, or decorate the
    /// method itself (`@functools.lru_cache` on the `def`, traced on torch 2.8+), or keep the
    /// cache in a dict keyed by the argument.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (a break on each).
    pub struct CachedWrapperCall {
        code: "BR013",
        name: "cached-wrapper-call",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "call through an instance attribute holding a functools.lru_cache wrapper: Dynamo does not trace the wrapper's __call__, graph break",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    if qualified.is_some() {
        return;
    }
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let Some((class, attr)) = semantic.self_attribute(&call.func) else {
        return;
    };
    if !semantic.is_cached_self_attribute(&class, &attr) {
        return;
    }
    let message = format!(
        "`self.{attr}` holds a functools cache wrapper: Dynamo does not trace its `__call__` ({}), so the graph breaks here and the cached function runs eagerly",
        super::graph_break_label("Unsupported method call")
    );
    checker.report(
        &CachedWrapperCall::META,
        Finding::new(call.range(), message).with_hazard(Hazard::GraphBreak),
    );
}
