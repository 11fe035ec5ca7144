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

/// Where a context manager entered by a `with` item was built, when Dynamo will not enter it
/// there: it has a source outside the frame being traced.
///
/// Dynamo enters a context manager it saw built while tracing the frame (`with Lock():`, or a
/// local built earlier in the same frame). One that reaches the frame from outside — a frame
/// input, an attribute of `self`, a module global — is "Unsupported context manager" (GB0142),
/// and as a `with` cannot break part-way Dynamo gives up on the whole frame: measured on torch
/// 2.2, 2.5, 2.8 and 2.11 (`backend="eager"`), a module whose `forward` enters `self.cm` or a
/// global instance compiles 0 graphs, for a class of the file with `__enter__`, a subclass of one,
/// the torch classes `rules/data/input_context_managers.toml` lists (`torch.no_grad()`,
/// `torch.set_grad_enabled(False)`) and the standard library's (`threading.Lock()`,
/// `threading.RLock()`, `contextlib.suppress(...)`, `warnings.catch_warnings()`);
/// `torch.autocast(...)` and `contextlib.nullcontext()` are entered (`tests/python/test_outside_context_manager_proofs.py`).
///
/// A local crosses a graph break the same way: the frame Dynamo resumes in after the break
/// receives it as an input. For torch's own context managers Dynamo carries that over (`ctx =
/// torch.no_grad()`, break, `with ctx:` compiles 2 graphs on each torch), for an instance of a
/// class of the file it does not: the resumed frame stops at the `with` (torch 2.5, 2.8, 2.11;
/// torch 2.2 skips the whole frame already at the break).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutsideBuilt {
    /// `with self.<attr>:`, the attribute some method of `class` stores (decided once the file
    /// is walked: `SemanticModel::self_attribute_enters_refused`), in the function `func`.
    Attribute {
        class: String,
        attr: String,
        func: FuncIdx,
    },
    /// `with NAME:`, the one instance the module binds `NAME` to, of the class named.
    ModuleGlobal { class: String },
    /// `with NAME:`, an instance of a class of this file bound in this frame by the call that
    /// ends on `row`: refused only when a graph break comes between (decided per function once
    /// its findings are known).
    BeforeBreak { class: String, row: u32 },
}

impl<'a> SemanticModel<'a> {
    /// Where the context manager `with` enters through `value` was built, when that is outside
    /// the frame Dynamo traces it in (or may be, across a break): `None` for one built in the
    /// `with` itself, for anything unknown, and for classes Dynamo enters from outside.
    pub fn outside_built_context_manager(&self, value: &Expr) -> Option<OutsideBuilt> {
        self.current_function()?;
        match value {
            Expr::Attribute(_) => {
                let (class, attr) = self.self_attribute(value)?;
                let func = self.current_function()?;
                Some(OutsideBuilt::Attribute { class, attr, func })
            }
            Expr::Name(name) => {
                let name = name.id.as_str();
                if let Some(bound) = self.local_value(name) {
                    let Expr::Call(call) = bound else { return None };
                    let Some(Sym::Local(class)) = self.resolve(&call.func) else {
                        return None;
                    };
                    // Torch's own context managers cross a break (measured); a class of the
                    // file does not.
                    return self.is_context_manager_class(&class).then(|| {
                        let row = self.location(call.range().end().into()).row;
                        OutsideBuilt::BeforeBreak { class, row }
                    });
                }
                if self.binds_in_function(name) {
                    return None;
                }
                let Some(Expr::Call(call)) = self.module_single_value(name) else {
                    return None;
                };
                let class = self.resolve(&call.func)?;
                let (Sym::Local(name) | Sym::Dotted(name)) = &class else {
                    return None;
                };
                self.refused_from_outside(&class)
                    .then(|| OutsideBuilt::ModuleGlobal {
                        class: name.clone(),
                    })
            }
            _ => None,
        }
    }

    /// Does the function being walked (or one it is nested in) bind `name`: a parameter, an
    /// assignment, a loop or `with` target, an import or a definition?
    fn binds_in_function(&self, name: &str) -> bool {
        self.frames.iter().any(|frame| {
            matches!(frame.kind, FrameKind::Function { .. })
                && (frame.bindings.contains_key(name) || frame.locals.contains_key(name))
        })
    }

    /// Does some method of `class` store in `self.<attr>` an instance Dynamo refuses to enter
    /// from outside the frame? Complete once the file is walked. A class another file defines
    /// is not looked up (not claimed).
    /// Built in `func` itself, it is not from outside there (torch 2.11 enters it; 2.2 does not,
    /// so it is not claimed either way).
    pub fn self_attribute_enters_refused(&self, class: &str, attr: &str, func: FuncIdx) -> bool {
        let key = (class.to_owned(), attr.to_owned());
        self.self_attribute_type(class, attr)
            .is_some_and(|sym| self.refused_from_outside(sym))
            && !self
                .self_attr_builders
                .get(&key)
                .is_some_and(|builders| builders.contains(&func))
    }

    /// A class Dynamo will not enter when an instance of it comes from outside the frame: a
    /// context-manager class of this file, a torch class of
    /// `rules/data/input_context_managers.toml` on every torch from the floor, or a
    /// standard-library one other than `contextlib.nullcontext` (`threading.Lock()`,
    /// `warnings.catch_warnings()`: measured the same on torch 2.2 and 2.11).
    fn refused_from_outside(&self, class: &Sym) -> bool {
        match class {
            Sym::Local(qual) => self.is_context_manager_class(qual),
            Sym::Dotted(dotted) => {
                TORCH
                    .generated
                    .input_context_managers
                    .on_every_from(dotted, self.torch_floor())
                    .is_some()
                    || self.is_stdlib_context_manager(dotted)
            }
            _ => false,
        }
    }
}

impl<'a> SemanticModel<'a> {
    /// `with NAME:` where this frame bound `NAME` to a torch context manager of
    /// `rules/data/crossing_context_managers.toml` (`ctx = torch.no_grad()`): its dotted name and
    /// the row the call ends on. Whether a graph break comes between is decided per function once
    /// its findings are known (`Candidate::after_break_since`).
    pub fn torch_context_manager_local(&self, value: &Expr) -> Option<(String, u32)> {
        let Expr::Name(name) = value else { return None };
        let Expr::Call(call) = self.local_value(name.id.as_str())? else {
            return None;
        };
        let Some(Sym::Dotted(dotted)) = self.resolve(&call.func) else {
            return None;
        };
        TORCH
            .generated
            .crossing_context_managers
            .each_version_from(&dotted, self.torch_floor())?;
        let row = self.location(call.range().end().into()).row;
        Some((dotted, row))
    }
}
