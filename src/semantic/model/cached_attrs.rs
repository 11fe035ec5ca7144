//! Instance attributes that hold a `functools.lru_cache` / `functools.cache` wrapper:
//! `self.build = functools.lru_cache(100)(self.build)` (a per-instance cache of a bound method),
//! `self.lookup = functools.cache(fn)`, in any method of the class.
//!
//! Why it matters: Dynamo traces a cache-decorated function defined at module or class level, but
//! not a call through a wrapper object held in an instance attribute (measured: torch 2.8 and 2.11
//! GB0156 "Unsupported method call" on `_lru_cache_wrapper.__call__`; torch 2.2 and 2.5 break on
//! the same call).

use super::*;

/// `functools.lru_cache` / `functools.cache` under their qualified names.
const CACHE_DECORATORS: &[&str] = &["functools.lru_cache", "functools.cache"];

impl<'a> SemanticModel<'a> {
    /// `self.attr = <cache wrapper>` in a method: records the attribute; any other assignment
    /// of it makes it unknown.
    pub(crate) fn note_cached_attribute_assignment(&mut self, target: &Expr, value: &Expr) {
        let Some((class, attr)) = self.self_attribute(target) else {
            return;
        };
        let wraps = self.is_cache_wrapper(value);
        let entry = self.cached_attrs.entry((class, attr)).or_insert(wraps);
        *entry &= wraps;
    }

    /// `functools.lru_cache(maxsize)(f)`, `functools.lru_cache(f)`, `functools.cache(f)`.
    fn is_cache_wrapper(&self, value: &Expr) -> bool {
        let Expr::Call(call) = value else {
            return false;
        };
        // `lru_cache(100)(f)` / `lru_cache(maxsize=100)(f)`: the decorator factory, applied.
        if let Expr::Call(factory) = &*call.func {
            return call.arguments.args.len() == 1
                && self
                    .qualified(&factory.func)
                    .is_some_and(|q| q == "functools.lru_cache");
        }
        // `lru_cache(f)` / `cache(f)`: the function itself, not a maxsize number.
        call.arguments.args.len() == 1
            && !matches!(
                call.arguments.args[0],
                Expr::NumberLiteral(_) | Expr::NoneLiteral(_)
            )
            && self
                .qualified(&call.func)
                .is_some_and(|q| CACHE_DECORATORS.contains(&q.as_str()))
    }

    /// Does every assignment seen so far of `self.<attr>` in `class` (or a base class of this
    /// file) store a cache wrapper?
    pub fn is_cached_self_attribute(&self, class: &str, attr: &str) -> bool {
        let mut class = class.to_owned();
        for _ in 0..4 {
            if let Some(wraps) = self.cached_attrs.get(&(class.clone(), attr.to_owned())) {
                return *wraps;
            }
            let Some(next) = self.local_base_class(&class) else {
                return false;
            };
            class = next;
        }
        false
    }
}
