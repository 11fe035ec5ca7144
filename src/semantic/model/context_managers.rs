//! `with` blocks Dynamo cannot resume in after a graph break.
//!
//! Dynamo traces a project context manager — a class defining `__enter__`/`__exit__`, or a
//! function decorated with `contextlib.contextmanager` — as a generic context-wrapping variable,
//! and a graph break under one cannot resume ("Graph break under
//! GenericContextWrappingVariable"): it skips the whole frame, like a break inside a loop or a
//! `try` body. Measured on torch 2.2, 2.5, 2.8 and 2.11 (Python 3.11): a break inside
//! `with ProjectClass():` gives 0 graphs and no break reason; under a `@contextmanager` function
//! 2.2/2.5 break at the `with` itself (contextlib is skipped) and never trace the rest either,
//! 2.8/2.11 give 0 graphs. Under torch's own context managers (`torch.no_grad()`,
//! `torch.autocast(...)`, `torch.enable_grad()`) and `contextlib.nullcontext()` the break resumes
//! (`tests/python/test_frame_skip_proofs.py`).
//!
//! Only context managers defined in this file are known here (a pre-pass over the module's
//! top-level classes and functions, O(top-level statements + class-body statements)); one
//! imported from another module, a third-party or stdlib one, or one in a variable is not
//! assumed either way, so no later hazard is folded under it.

use super::*;

impl<'a> SemanticModel<'a> {
    /// Notes a module-level `def`/`class` that defines a project context manager (module pre-pass).
    pub(crate) fn note_context_manager_def(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(def) if self.is_contextmanager_def(def) => {
                self.unresumable_context_managers
                    .insert(def.name.id.to_string());
            }
            Stmt::ClassDef(class) => {
                let name = class.name.id.as_str();
                let mut enters = false;
                for member in &class.body {
                    let Stmt::FunctionDef(def) = member else {
                        continue;
                    };
                    if def.name.id.as_str() == "__enter__" && !def.is_async {
                        enters = true;
                    } else if self.is_contextmanager_def(def) {
                        self.unresumable_context_managers
                            .insert(format!("{name}.{}", def.name.id));
                    }
                }
                if enters {
                    self.unresumable_context_managers.insert(name.to_owned());
                }
            }
            _ => {}
        }
    }

    /// A synchronous `def` decorated with `contextlib.contextmanager`.
    fn is_contextmanager_def(&self, def: &ast::StmtFunctionDef) -> bool {
        !def.is_async
            && def.decorator_list.iter().any(|decorator| {
                self.qualified(&decorator.expression).as_deref()
                    == Some("contextlib.contextmanager")
            })
    }

    /// Enters the body of a `with` statement; true when one of its items is a project context
    /// manager Dynamo cannot resume in (then [`SemanticModel::leave_unresumable_with`] after the
    /// body).
    pub(crate) fn enter_with(&mut self, with: &ast::StmtWith) -> bool {
        // A file without a context manager of its own (most) resolves nothing here.
        if with.is_async
            || self.unresumable_context_managers.is_empty()
            || self.current_function().is_none()
        {
            return false;
        }
        let unresumable = with.items.iter().any(|item| {
            let Expr::Call(call) = &item.context_expr else {
                return false;
            };
            let name = match self.resolve(&call.func) {
                Some(Sym::Local(name)) => name,
                Some(Sym::SelfAttr { class, attr }) => format!("{class}.{attr}"),
                _ => return false,
            };
            self.unresumable_context_managers.contains(&name)
        });
        self.unresumable_with_depth += u32::from(unresumable);
        unresumable
    }

    pub(crate) fn leave_unresumable_with(&mut self) {
        self.unresumable_with_depth -= 1;
    }
}
