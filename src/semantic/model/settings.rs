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
    /// loop at the top level, is not a setting).
    pub(crate) fn note_module_settings(&mut self, body: &'a [Stmt]) {
        let mut bound: rustc_hash::FxHashMap<String, u32> = Default::default();
        let mut values: Vec<(String, ConstValue)> = Vec::new();
        for stmt in body {
            match stmt {
                Stmt::Assign(assign) => {
                    if let [Expr::Name(target)] = assign.targets.as_slice()
                        && let Some(value) = ConstValue::of(&assign.value)
                    {
                        values.push((target.id.to_string(), value));
                    }
                    for target in &assign.targets {
                        count_targets(target, "", &mut bound);
                    }
                }
                Stmt::ClassDef(class) => {
                    *bound.entry(class.name.id.to_string()).or_default() += 1;
                    let prefix = format!("{}.", class.name.id);
                    for inner in &class.body {
                        match inner {
                            Stmt::Assign(assign) => {
                                if let [Expr::Name(target)] = assign.targets.as_slice()
                                    && let Some(value) = ConstValue::of(&assign.value)
                                {
                                    values.push((format!("{prefix}{}", target.id), value));
                                }
                                for target in &assign.targets {
                                    count_targets(target, &prefix, &mut bound);
                                }
                            }
                            other => count_bindings(other, &prefix, &mut bound),
                        }
                    }
                }
                other => count_bindings(other, "", &mut bound),
            }
        }
        let settings = &mut self.summary.settings;
        for (name, value) in values {
            if bound.get(&name) == Some(&1) && value != ConstValue::Dim {
                let last = name.rsplit('.').next().unwrap_or(&name).to_owned();
                settings.last_names.insert(last);
                settings.values.insert(name, value);
            }
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

/// Counts the names a target binds (`prefix` for a class body).
fn count_targets(target: &Expr, prefix: &str, bound: &mut rustc_hash::FxHashMap<String, u32>) {
    match target {
        Expr::Name(name) => *bound.entry(format!("{prefix}{}", name.id)).or_default() += 1,
        Expr::Tuple(tuple) => tuple
            .elts
            .iter()
            .for_each(|e| count_targets(e, prefix, bound)),
        Expr::List(list) => list
            .elts
            .iter()
            .for_each(|e| count_targets(e, prefix, bound)),
        Expr::Starred(starred) => count_targets(&starred.value, prefix, bound),
        _ => {}
    }
}

/// Counts the names another top-level statement binds; a compound statement's bodies count
/// twice (bound only on some paths: never a setting).
fn count_bindings(stmt: &Stmt, prefix: &str, bound: &mut rustc_hash::FxHashMap<String, u32>) {
    let mut add = |name: &str, times: u32| {
        *bound.entry(format!("{prefix}{name}")).or_default() += times;
    };
    match stmt {
        Stmt::AugAssign(assign) => count_targets(&assign.target, prefix, bound),
        Stmt::AnnAssign(assign) => count_targets(&assign.target, prefix, bound),
        Stmt::FunctionDef(def) => add(def.name.id.as_str(), 1),
        Stmt::ClassDef(class) => add(class.name.id.as_str(), 1),
        Stmt::Import(import) => {
            for alias in &import.names {
                let name = alias.asname.as_ref().unwrap_or(&alias.name);
                add(name.id.split('.').next().unwrap_or_default(), 1);
            }
        }
        Stmt::ImportFrom(import) => {
            for alias in &import.names {
                add(alias.asname.as_ref().unwrap_or(&alias.name).id.as_str(), 1);
            }
        }
        Stmt::Delete(delete) => delete
            .targets
            .iter()
            .for_each(|t| count_targets(t, prefix, bound)),
        Stmt::If(stmt_if) => {
            count_nested(&stmt_if.body, prefix, bound);
            for clause in &stmt_if.elif_else_clauses {
                count_nested(&clause.body, prefix, bound);
            }
        }
        Stmt::Try(stmt_try) => {
            count_nested(&stmt_try.body, prefix, bound);
            for handler in &stmt_try.handlers {
                let ast::ExceptHandler::ExceptHandler(handler) = handler;
                count_nested(&handler.body, prefix, bound);
            }
            count_nested(&stmt_try.orelse, prefix, bound);
            count_nested(&stmt_try.finalbody, prefix, bound);
        }
        Stmt::With(with) => count_nested(&with.body, prefix, bound),
        Stmt::For(stmt_for) => {
            count_targets(&stmt_for.target, prefix, bound);
            count_targets(&stmt_for.target, prefix, bound);
            count_nested(&stmt_for.body, prefix, bound);
            count_nested(&stmt_for.orelse, prefix, bound);
        }
        Stmt::While(stmt_while) => {
            count_nested(&stmt_while.body, prefix, bound);
            count_nested(&stmt_while.orelse, prefix, bound);
        }
        _ => {}
    }
}

/// The names a nested top-level body binds, each counted twice (bound only on some paths).
fn count_nested(body: &[Stmt], prefix: &str, bound: &mut rustc_hash::FxHashMap<String, u32>) {
    for inner in body {
        let mut once = rustc_hash::FxHashMap::default();
        match inner {
            Stmt::Assign(assign) => assign
                .targets
                .iter()
                .for_each(|t| count_targets(t, prefix, &mut once)),
            other => count_bindings(other, prefix, &mut once),
        }
        for (name, _) in once {
            *bound.entry(name).or_default() += 2;
        }
    }
}
