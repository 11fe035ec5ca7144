//! Settings, per file: a module-level `NAME = <constant>` or a class-level `X = <constant>` (a
//! switch class, `class fast_path: enabled = False`), bound once and unconditionally, and the
//! guards in functions that read them (`if NAME:`, `Switch.enabled == "on"`). Users can change
//! such a value (`mod.NAME = True`, a setter), so a branch that needs it off its default is the
//! option tier, not silence; linking decides which settings nothing in the tree changes
//! (`semantic/settings.rs`).

use super::*;
use crate::semantic::cond::{Atom, Cond};
use crate::semantic::context::{ConstValue, ParamTest};

impl<'a> SemanticModel<'a> {
    /// The settings a module's top level binds (one pass over the top-level statements and the
    /// bodies of top-level classes; a name bound twice, or also bound under an `if`/`try`/`with`/
    /// loop at the top level, is not a setting). Cost: the candidates (a single name bound to a
    /// literal) are gathered first, borrowing their names from the AST; a file without one stops
    /// there, and the bindings of the others are counted by borrowed key (no allocation per
    /// top-level binding; only a setting's own name is allocated).
    pub(crate) fn note_module_settings(&mut self, body: &'a [Stmt]) {
        let mut candidates: Vec<(BoundName<'a>, &'a Expr)> = Vec::new();
        for stmt in body {
            match stmt {
                Stmt::Assign(assign) => {
                    if let [Expr::Name(target)] = assign.targets.as_slice()
                        && may_be_constant(&assign.value)
                    {
                        candidates.push((("", target.id.as_str()), &assign.value));
                    }
                }
                Stmt::ClassDef(class) => {
                    for inner in &class.body {
                        if let Stmt::Assign(assign) = inner
                            && let [Expr::Name(target)] = assign.targets.as_slice()
                            && may_be_constant(&assign.value)
                        {
                            let key = (class.name.id.as_str(), target.id.as_str());
                            candidates.push((key, &assign.value));
                        }
                    }
                }
                _ => {}
            }
        }
        if candidates.is_empty() {
            return;
        }
        let mut counts = BindingCounts {
            counts: candidates.iter().map(|&(key, _)| (key, 0)).collect(),
        };
        for stmt in body {
            match stmt {
                Stmt::ClassDef(class) => {
                    counts.add("", class.name.id.as_str(), 1);
                    for inner in &class.body {
                        counts.statement(inner, class.name.id.as_str(), 1);
                    }
                }
                other => counts.statement(other, "", 1),
            }
        }
        let settings = &mut self.summary.settings;
        for ((class, name), value) in candidates {
            if counts.counts.get(&(class, name)) != Some(&1) {
                continue;
            }
            let Some(value) = ConstValue::of(value) else {
                continue;
            };
            if value == ConstValue::Dim {
                continue;
            }
            let key = if class.is_empty() {
                name.to_owned()
            } else {
                format!("{class}.{name}")
            };
            settings.last_names.insert(name.to_owned());
            settings.values.insert(key, value);
        }
    }

    /// A store of attribute `attr` on `receiver` (None: through `setattr`) in this file, when
    /// `attr` is the last name of one of its settings: the class's own setter, or another store.
    pub(crate) fn note_setting_store(&mut self, receiver: Option<&Expr>, attr: &str) {
        let last_names = &self.summary.settings.last_names;
        if last_names.is_empty() || !last_names.contains(attr) {
            return;
        }
        let own = match (receiver, self.method_context()) {
            (Some(Expr::Name(owner)), Some((self_name, class)))
                if owner.id.as_str() == self_name || owner.id.as_str() == class =>
            {
                let key = format!("{class}.{attr}");
                let method = self
                    .current_function()
                    .map(|idx| self.summary.functions[idx as usize].name.clone());
                match method {
                    Some(method) if self.summary.settings.values.contains_key(&key) => {
                        Some((key, method))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let settings = &mut self.summary.settings;
        match own {
            Some(setter) => settings.own_setters.push(setter),
            None => {
                settings.local_stores.insert(attr.to_owned());
            }
        }
    }

    /// `global NAME` in a function: the module's `NAME` may be rebound (`semantic/settings.rs`).
    pub(crate) fn note_global_statement(&mut self, stmt: &Stmt) {
        if let Stmt::Global(global) = stmt {
            for name in &global.names {
                let rebound = &mut self.summary.settings.rebound;
                if !rebound.contains(name.id.as_str()) {
                    rebound.insert(name.id.to_string());
                }
            }
        }
    }

    /// A guard reading a setting of this module in a function: `NAME`, `Switch.X`, or either
    /// compared with a constant.
    pub(crate) fn setting_test(&self, expr: &Expr) -> Option<Cond> {
        if self.summary.settings.values.is_empty() {
            return None;
        }
        match expr {
            Expr::Compare(compare) if compare.ops.len() == 1 => {
                let name = self.setting_read(&compare.left)?;
                super::context_atoms::compared_with_constant(
                    compare.ops[0],
                    compare.comparators.first()?,
                    |test| {
                        Cond::Atom(Atom::Setting {
                            name: name.clone(),
                            test,
                        })
                    },
                )
            }
            other => Some(Cond::Atom(Atom::Setting {
                name: self.setting_read(other)?,
                test: ParamTest::Truthy,
            })),
        }
    }

    /// The setting `expr` reads, inside a function: a module-level name no enclosing function
    /// binds, or `Class.X` on a class of this module.
    fn setting_read(&self, expr: &Expr) -> Option<String> {
        self.function_frame()?;
        let name = match expr {
            // Looked up before anything is allocated: most guard names are not settings.
            Expr::Name(name) if !self.summary.settings.values.contains_key(name.id.as_str()) => {
                return None;
            }
            Expr::Name(name) => name.id.to_string(),
            Expr::Attribute(attribute) => {
                let Expr::Name(class) = &*attribute.value else {
                    return None;
                };
                if !matches!(self.lookup(class.id.as_str()), Some(Binding::Class(_))) {
                    return None;
                }
                format!("{}.{}", class.id, attribute.attr.id)
            }
            _ => return None,
        };
        if !self.summary.settings.values.contains_key(&name) {
            return None;
        }
        let head = name.split('.').next().unwrap_or(&name);
        let shadowed = self.frames.iter().any(|frame| {
            matches!(frame.kind, FrameKind::Function { .. })
                && (frame.bindings.contains_key(head)
                    || frame.locals.contains_key(head)
                    || frame.values.contains_key(head))
        });
        (!shadowed).then_some(name)
    }
}

/// A name bound at a module's top level: `(class, name)`, class `""` outside a class body.
type BoundName<'a> = (&'a str, &'a str);

/// Could `ConstValue::of` read `value` as a constant? (Its expression kinds; checked without
/// allocating a string literal's text.)
fn may_be_constant(value: &Expr) -> bool {
    matches!(
        value,
        Expr::NoneLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NumberLiteral(_)
            | Expr::StringLiteral(_)
            | Expr::UnaryOp(_)
    )
}

/// How often each candidate setting is bound at the top level; only the candidates are counted.
/// A binding under a compound top-level statement counts twice (bound only on some paths): a
/// setting is a name counted exactly once.
struct BindingCounts<'a> {
    counts: rustc_hash::FxHashMap<BoundName<'a>, u32>,
}

impl<'a> BindingCounts<'a> {
    fn add(&mut self, class: &'a str, name: &'a str, times: u32) {
        if let Some(count) = self.counts.get_mut(&(class, name)) {
            *count += times;
        }
    }

    /// The names a target binds.
    fn targets(&mut self, target: &'a Expr, class: &'a str, times: u32) {
        match target {
            Expr::Name(name) => self.add(class, name.id.as_str(), times),
            Expr::Tuple(tuple) => tuple
                .elts
                .iter()
                .for_each(|e| self.targets(e, class, times)),
            Expr::List(list) => list.elts.iter().for_each(|e| self.targets(e, class, times)),
            Expr::Starred(starred) => self.targets(&starred.value, class, times),
            _ => {}
        }
    }

    /// The names a statement of a top-level body (`class` `""`) or class body binds; those in
    /// a compound statement's bodies count twice.
    fn statement(&mut self, stmt: &'a Stmt, class: &'a str, times: u32) {
        match stmt {
            Stmt::Assign(assign) => assign
                .targets
                .iter()
                .for_each(|t| self.targets(t, class, times)),
            Stmt::AugAssign(assign) => self.targets(&assign.target, class, times),
            Stmt::AnnAssign(assign) => self.targets(&assign.target, class, times),
            Stmt::FunctionDef(def) => self.add(class, def.name.id.as_str(), times),
            Stmt::ClassDef(inner) => self.add(class, inner.name.id.as_str(), times),
            Stmt::Import(import) => {
                for alias in &import.names {
                    let name = alias.asname.as_ref().unwrap_or(&alias.name);
                    self.add(class, name.id.split('.').next().unwrap_or_default(), times);
                }
            }
            Stmt::ImportFrom(import) => {
                for alias in &import.names {
                    let name = alias.asname.as_ref().unwrap_or(&alias.name);
                    self.add(class, name.id.as_str(), times);
                }
            }
            Stmt::Delete(delete) => delete
                .targets
                .iter()
                .for_each(|t| self.targets(t, class, times)),
            Stmt::If(stmt_if) => {
                self.nested(&stmt_if.body, class);
                for clause in &stmt_if.elif_else_clauses {
                    self.nested(&clause.body, class);
                }
            }
            Stmt::Try(stmt_try) => {
                self.nested(&stmt_try.body, class);
                for handler in &stmt_try.handlers {
                    let ast::ExceptHandler::ExceptHandler(handler) = handler;
                    self.nested(&handler.body, class);
                }
                self.nested(&stmt_try.orelse, class);
                self.nested(&stmt_try.finalbody, class);
            }
            Stmt::With(with) => self.nested(&with.body, class),
            Stmt::For(stmt_for) => {
                self.targets(&stmt_for.target, class, 2);
                self.nested(&stmt_for.body, class);
                self.nested(&stmt_for.orelse, class);
            }
            Stmt::While(stmt_while) => {
                self.nested(&stmt_while.body, class);
                self.nested(&stmt_while.orelse, class);
            }
            _ => {}
        }
    }

    /// A compound statement's body: each binding in it counts twice.
    fn nested(&mut self, body: &'a [Stmt], class: &'a str) {
        for inner in body {
            self.statement(inner, class, 2);
        }
    }
}
