//! What class a `self.<attr>` holds: the constructor it was built with (`self.rnn = Cls(...)`), a
//! class a project helper picks (`self.rnn = pick_cls(kind)(...)`, where every `return` of the
//! helper names a class, directly or through a local it assigned only classes to; or bound first,
//! `cls = pick_cls(kind)` then `self.rnn = cls(...)`), and what those classes derive from in this
//! file. A helper imported from another project file is recorded by name and decided at link time
//! (`FileSummary::factory_class_checks`). Complete only once the file is walked (a read may come
//! before the assignment), so rules ask through a `Requirement`.

use super::SemanticModel;
use crate::semantic::Sym;
use crate::semantic::data::TORCH;
use ruff_python_ast::{Expr, Stmt};
use rustc_hash::FxHashMap;

/// Deeper class chains (or conditional expressions) than this are not followed.
const MAX_DEPTH: u32 = 16;

/// What a branch test says a name holds inside the branch.
pub(crate) enum Narrowed {
    /// `issubclass(name, C)`: a subclass of `C`.
    SubclassOf(Sym),
    /// `isinstance(name, C)` with `C` an `nn.Module` class: a module instance. Called with
    /// constructor arguments (`cls(dim, ...)`) it runs its `forward` and builds no submodule, so
    /// as a class picker's result that branch contributes no class.
    ModuleInstance,
}

#[derive(Default)]
pub(crate) struct ClassFactories {
    /// Local function → the classes its `return`s name; `None` once some `return` yields
    /// anything else (a call, an instance, nothing), so the function is no class factory.
    returns: FxHashMap<String, Option<Vec<Sym>>>,
    /// `(class, attr)` → the function (local, or imported from another file) whose returned class
    /// `self.attr` was built from.
    built_by: FxHashMap<(String, String), Sym>,
    /// `(function, local)` → the classes assigned to the local (`cls = A` in one branch, `cls = B`
    /// in another); `None` once some assignment is anything else (a parameter, a call).
    assigned: FxHashMap<String, FxHashMap<String, Option<Vec<Sym>>>>,
}

impl<'a> SemanticModel<'a> {
    /// `return A if cond else B` / `return A`: record the classes (or other names) a function
    /// hands back; any other value makes it no class factory.
    pub(crate) fn note_returned_class(&mut self, stmt: &Stmt) {
        let Stmt::Return(ret) = stmt else { return };
        let Some(qual) = self.function_frame().map(|frame| frame.qual.clone()) else {
            return;
        };
        let mut names = Vec::new();
        let named = ret
            .value
            .as_deref()
            .is_some_and(|value| self.returned_names(value, &mut names, 0));
        let entry = self
            .class_factories
            .returns
            .entry(qual)
            .or_insert_with(|| Some(Vec::new()));
        match (named, entry.as_mut()) {
            (true, Some(all)) => all.extend(names),
            _ => *entry = None,
        }
    }

    /// `local = value` in a function: the union of what every assignment to the local names (an
    /// over-approximation of what it may hold when returned); anything but names makes it unknown.
    pub(crate) fn note_assigned_class(&mut self, local: &str, value: &Expr) {
        let Some(qual) = self
            .frames
            .iter()
            .rev()
            .find(|frame| matches!(frame.kind, super::FrameKind::Function { .. }))
            .map(|frame| frame.qual.as_str())
        else {
            return;
        };
        // Hot path (every assignment): only a plain name or a conditional of names can be a
        // class; anything else matters only for a local already seen holding one.
        if !matches!(value, Expr::Name(_) | Expr::Attribute(_) | Expr::If(_)) {
            if let Some(entry) = self
                .class_factories
                .assigned
                .get_mut(qual)
                .and_then(|locals| locals.get_mut(local))
            {
                *entry = None;
            }
            return;
        }
        let qual = qual.to_owned();
        let mut names = Vec::new();
        let named = self.returned_names(value, &mut names, 0);
        let entry = self
            .class_factories
            .assigned
            .entry(qual)
            .or_default()
            .entry(local.to_owned())
            .or_insert_with(|| Some(Vec::new()));
        match (named, entry.as_mut()) {
            (true, Some(all)) => all.extend(names),
            _ => *entry = None,
        }
    }

    /// Entering the true branch of `test`: `issubclass(name, C)` narrows `name` to a subclass of
    /// `C` there, `isinstance(name, C)` (an `nn.Module` class) to a module instance ([`Narrowed`]).
    /// Returns what [`Self::leave_narrowing`] restores.
    pub(crate) fn enter_narrowing(&mut self, test: &Expr) -> usize {
        let depth = self.narrowed.len();
        let Expr::Call(call) = test else { return depth };
        let instance = self.is_builtin(&call.func, "isinstance");
        if !(instance || self.is_builtin(&call.func, "issubclass"))
            || !call.arguments.keywords.is_empty()
        {
            return depth;
        }
        let [Expr::Name(name), kind] = &*call.arguments.args else {
            return depth;
        };
        let Some(class @ (Sym::Local(_) | Sym::Dotted(_))) = self.resolve(kind) else {
            return depth;
        };
        let narrowed = if !instance {
            Narrowed::SubclassOf(class)
        } else if self.derives_from(&class, &|dotted| TORCH.is_module_base(dotted)) {
            Narrowed::ModuleInstance
        } else {
            return depth;
        };
        self.narrowed.push((name.id.to_string(), narrowed));
        depth
    }

    pub(crate) fn leave_narrowing(&mut self, depth: usize) {
        self.narrowed.truncate(depth);
    }

    /// The names each branch of `value` resolves to; false if some branch is not a plain name.
    fn returned_names(&self, value: &Expr, out: &mut Vec<Sym>, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        if let Expr::Name(name) = value
            && let Some(qual) = self.function_frame().map(|frame| frame.qual.as_str())
            && let Some(assigned) = self
                .class_factories
                .assigned
                .get(qual)
                .and_then(|locals| locals.get(name.id.as_str()))
        {
            // A local of this function: every class assigned to it, or unknown.
            return match assigned {
                Some(classes) => {
                    out.extend(classes.iter().cloned());
                    true
                }
                None => false,
            };
        }
        if let Expr::Name(name) = value
            && let Some((_, narrowed)) = self
                .narrowed
                .iter()
                .rev()
                .find(|(narrowed, _)| narrowed == name.id.as_str())
        {
            if let Narrowed::SubclassOf(class) = narrowed {
                out.push(class.clone());
            }
            return true;
        }
        match value {
            Expr::If(if_exp) => {
                self.returned_names(&if_exp.body, out, depth + 1)
                    && self.returned_names(&if_exp.orelse, out, depth + 1)
            }
            Expr::Name(_) | Expr::Attribute(_) => match self.resolve(value) {
                Some(sym @ (Sym::Local(_) | Sym::Dotted(_))) => {
                    out.push(sym);
                    true
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// `self.attr = helper(...)(...)`, or `cls = helper(...)` then `self.attr = cls(...)`: the
    /// attribute holds an instance of a class `helper` returns.
    pub(crate) fn note_factory_attribute(&mut self, class: &str, attr: &str, value: &Expr) {
        let Expr::Call(call) = value else { return };
        let picked = match &*call.func {
            Expr::Call(inner) => Some(inner),
            Expr::Name(name) => self
                .function_frame()
                .and_then(|frame| frame.values.get(name.id.as_str()).copied())
                .and_then(|bound| match bound {
                    Expr::Call(inner) => Some(inner),
                    _ => None,
                }),
            _ => None,
        };
        let Some(inner) = picked else { return };
        if let Some(helper @ (Sym::Local(_) | Sym::Dotted(_))) = self.resolve(&inner.func) {
            self.class_factories
                .built_by
                .insert((class.to_owned(), attr.to_owned()), helper);
        }
    }

    /// The imported helper (`Sym::Dotted`) that picked the class of `self.attr`, for linking to
    /// decide; `None` when a local helper (or a constructor) did.
    pub fn self_attribute_imported_factory(&self, class: &str, attr: &str) -> Option<&Sym> {
        if self.self_attribute_type(class, attr).is_some() {
            return None;
        }
        self.class_factories
            .built_by
            .get(&(class.to_owned(), attr.to_owned()))
            .filter(|helper| matches!(helper, Sym::Dotted(_)))
    }

    /// Every function of this file all of whose `return`s name classes, with those classes
    /// (for helpers other files import: `FileSummary::class_factory_returns`).
    pub(crate) fn class_factory_returns(&self) -> impl Iterator<Item = (&String, &Vec<Sym>)> {
        self.class_factories
            .returns
            .iter()
            .filter_map(|(qual, classes)| Some((qual, classes.as_ref()?)))
            .filter(|(_, classes)| !classes.is_empty())
    }

    /// Every class `self.attr` of `class` may hold, when each is known: the constructor it was
    /// built with, or every class the helper that picked it returns. Empty when unknown.
    pub fn self_attribute_classes(&self, class: &str, attr: &str) -> Vec<&Sym> {
        if let Some(sym) = self.self_attribute_type(class, attr) {
            return vec![sym];
        }
        let key = (class.to_owned(), attr.to_owned());
        self.class_factories
            .built_by
            .get(&key)
            .and_then(|helper| match helper {
                Sym::Local(helper) => self.class_factories.returns.get(helper),
                _ => None,
            })
            .and_then(Option::as_ref)
            .map(|classes| classes.iter().collect())
            .unwrap_or_default()
    }

    /// Is `sym` a class named by `is_base`, or one of this file's classes deriving from one?
    /// Is the class of this local qualified name declared abstract (`ClassInfo::is_abstract`)?
    pub fn is_abstract_class(&self, qual: &str) -> bool {
        self.summary
            .class_by_name
            .get(qual)
            .is_some_and(|&idx| self.summary.classes[idx as usize].is_abstract)
    }

    pub fn derives_from(&self, sym: &Sym, is_base: &dyn Fn(&str) -> bool) -> bool {
        self.derives_from_at(sym, is_base, 0)
    }

    fn derives_from_at(&self, sym: &Sym, is_base: &dyn Fn(&str) -> bool, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match sym {
            Sym::Dotted(name) => is_base(name),
            Sym::Local(name) => self
                .summary
                .classes
                .iter()
                .find(|info| info.qualname == *name)
                .is_some_and(|info| {
                    info.bases
                        .iter()
                        .any(|base| self.derives_from_at(base, is_base, depth + 1))
                }),
            _ => false,
        }
    }
}
