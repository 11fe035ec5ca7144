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
//! The standard library's context managers are the same to Dynamo (prec10, torch 2.11, Python
//! 3.11): a break inside `with warnings.catch_warnings():`, `contextlib.suppress(...)` or
//! `contextlib.ExitStack()` gives 0 graphs (the frame is skipped), and Dynamo cannot even enter
//! `contextlib.redirect_stdout(...)` or `tempfile.TemporaryDirectory()` (the `with` breaks and the
//! rest of the frame runs eagerly); without a break inside, `catch_warnings` and `suppress` trace
//! and the code after them resumes as usual. `contextlib.nullcontext()` is the exception Dynamo
//! models (a break under it resumes). So a `with` over a call resolving into a standard-library
//! module (`data::stdlib`, never a project module of the same name) other than `nullcontext` is
//! unresumable too (`tests/python/test_frame_skip_proofs.py`).
//!
//! Only project context managers defined in this file are known here (a pre-pass over the
//! module's top-level classes and functions, O(top-level statements + class-body statements));
//! one imported from another project module or a third-party one, or one in a variable (`ctx =
//! torch.autocast(...) if amp else nullcontext()`), is not assumed either way, so no later
//! hazard is folded under it.

use super::*;
use crate::semantic::data::TORCH;

/// Why a `with` block is one Dynamo cannot resume in after a graph break.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnresumableWith {
    /// A context manager the file defines (a class with `__enter__`, a `@contextmanager`).
    Project,
    /// A standard-library context manager other than `contextlib.nullcontext`.
    Stdlib,
}

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

    /// Enters the body of a `with` statement; `Some` when one of its items is a context manager
    /// Dynamo cannot resume in (then [`SemanticModel::leave_unresumable_with`] after the body).
    pub(crate) fn enter_with(&mut self, with: &ast::StmtWith) -> Option<UnresumableWith> {
        if with.is_async || self.current_function().is_none() {
            return None;
        }
        let mut found = None;
        for item in &with.items {
            let Expr::Call(call) = &item.context_expr else {
                continue;
            };
            let kind = match self.resolve(&call.func) {
                Some(Sym::Local(name)) => self
                    .unresumable_context_managers
                    .contains(&name)
                    .then_some(UnresumableWith::Project),
                Some(Sym::SelfAttr { class, attr }) => self
                    .unresumable_context_managers
                    .contains(&format!("{class}.{attr}"))
                    .then_some(UnresumableWith::Project),
                Some(Sym::Dotted(dotted)) => self
                    .is_stdlib_context_manager(&dotted)
                    .then_some(UnresumableWith::Stdlib),
                _ => None,
            };
            // A project one names the block first (its message was there before).
            if kind.is_some() && found != Some(UnresumableWith::Project) {
                found = kind;
            }
        }
        match found {
            Some(UnresumableWith::Project) => self.unresumable_with_depth += 1,
            Some(UnresumableWith::Stdlib) => self.stdlib_with_depth += 1,
            None => {}
        }
        found
    }

    pub(crate) fn leave_unresumable_with(&mut self, kind: UnresumableWith) {
        match kind {
            UnresumableWith::Project => self.unresumable_with_depth -= 1,
            UnresumableWith::Stdlib => self.stdlib_with_depth -= 1,
        }
    }

    /// A callable of a standard-library module (not a project module of the same name) other
    /// than `contextlib.nullcontext`, which Dynamo models.
    fn is_stdlib_context_manager(&self, dotted: &str) -> bool {
        let root = dotted.split('.').next().unwrap_or(dotted);
        dotted.contains('.')
            && dotted != "contextlib.nullcontext"
            && TORCH.stdlib.contains(root)
            && !self.is_project_dotted(dotted)
    }
}
