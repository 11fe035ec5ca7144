//! What class a `self.<attr>` holds: the constructor it was built with (`self.rnn = Cls(...)`), a
//! class a project helper picks (`self.rnn = pick_cls(kind)(...)`, where every `return` of the
//! helper names a class), and what those classes derive from in this file. Complete only once the
//! file is walked (a read may come before the assignment), so rules ask through a `Requirement`.

use super::SemanticModel;
use crate::semantic::Sym;
use ruff_python_ast::{Expr, Stmt};
use rustc_hash::FxHashMap;

/// Deeper class chains (or conditional expressions) than this are not followed.
const MAX_DEPTH: u32 = 16;

#[derive(Default)]
pub(crate) struct ClassFactories {
    /// Local function → the classes its `return`s name; `None` once some `return` yields
    /// anything else (a call, an instance, nothing), so the function is no class factory.
    returns: FxHashMap<String, Option<Vec<Sym>>>,
    /// `(class, attr)` → the local function whose returned class `self.attr` was built from.
    built_by: FxHashMap<(String, String), String>,
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

    /// The names each branch of `value` resolves to; false if some branch is not a plain name.
    fn returned_names(&self, value: &Expr, out: &mut Vec<Sym>, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
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

    /// `self.attr = helper(...)(...)`: the attribute holds an instance of a class `helper` returns.
    pub(crate) fn note_factory_attribute(&mut self, class: &str, attr: &str, value: &Expr) {
        let Expr::Call(call) = value else { return };
        let Expr::Call(inner) = &*call.func else {
            return;
        };
        if let Some(Sym::Local(helper)) = self.resolve(&inner.func) {
            self.class_factories
                .built_by
                .insert((class.to_owned(), attr.to_owned()), helper);
        }
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
            .and_then(|helper| self.class_factories.returns.get(helper))
            .and_then(Option::as_ref)
            .map(|classes| classes.iter().collect())
            .unwrap_or_default()
    }

    /// Is `sym` a class named by `is_base`, or one of this file's classes deriving from one?
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
