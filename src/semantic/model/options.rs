//! Constructor options, per file: `self.<attr>` set at the top of `__init__` from a parameter
//! with a literal default (`self.use_ema = use_ema`, `self.has_x = x is not None`), the other
//! stores that could change such an attribute, and what every call in the file passes by
//! keyword and by position. Linking decides from them which options nothing in the tree sets
//! (`semantic/options.rs`).

use super::*;
use crate::semantic::context::ConstValue;
use crate::semantic::options::{BorrowedStore, ForwardedParam, OptionStore, PassedValue};

impl<'a> SemanticModel<'a> {
    /// Notes the `self.<attr>` stores of an assignment: an option store when it is one, else a
    /// store that may change the attribute (any object's `.attr` outside `self` by name).
    pub(crate) fn note_option_stores(&mut self, stmt: &'a Stmt) {
        // Every assignment comes here: no allocation for the list of targets.
        match stmt {
            Stmt::Assign(assign) => {
                let value = (assign.targets.len() == 1).then_some(&*assign.value);
                for target in &assign.targets {
                    self.note_option_target(target, value);
                }
            }
            Stmt::AugAssign(assign) => self.note_option_target(&assign.target, None),
            Stmt::Global(_) => self.note_global_statement(stmt),
            Stmt::AnnAssign(assign) => {
                self.note_option_target(&assign.target, assign.value.as_deref());
            }
            _ => {}
        }
    }

    fn note_option_target(&mut self, target: &Expr, value: Option<&Expr>) {
        match target {
            Expr::Tuple(tuple) => {
                for element in &tuple.elts {
                    self.note_option_target(element, None);
                }
            }
            Expr::List(list) => {
                for element in &list.elts {
                    self.note_option_target(element, None);
                }
            }
            Expr::Starred(starred) => self.note_option_target(&starred.value, None),
            Expr::Attribute(attribute) => {
                let attr = attribute.attr.id.as_str();
                self.note_setting_store(Some(&attribute.value), attr);
                let on_self = match (&*attribute.value, self.method_context()) {
                    (Expr::Name(owner), Some((self_name, class)))
                        if owner.id.as_str() == self_name =>
                    {
                        Some(class.to_owned())
                    }
                    _ => None,
                };
                let Some(class) = on_self else {
                    // `model.use_ema = True`: any object's attribute of that name may change.
                    let written = &mut self.summary.options.written_anywhere;
                    if !written.contains(attr) {
                        written.insert(attr.to_owned());
                    }
                    return;
                };
                if let Some(store) = value.and_then(|value| self.option_store(&class, attr, value))
                {
                    self.summary.options.stores.push(store);
                } else if let Some(borrowed) =
                    value.and_then(|value| self.borrowed_store(&class, attr, value))
                {
                    self.summary.options.borrowed.push(borrowed);
                } else {
                    self.summary
                        .options
                        .overwritten
                        .insert((class, attr.to_owned()));
                }
            }
            _ => {}
        }
    }

    /// `self.<attr> = p` (or `p is None`, `p is not None`, `not p`, `bool(p)`) at the top level
    /// of `__init__`, `p` an unchanged parameter with a literal default.
    fn option_store(&self, class: &str, attr: &str, value: &Expr) -> Option<OptionStore> {
        // After `if ratio is None and min_score is None: raise ValueError(...)` the store is
        // still made on every construction (one that raises builds nothing).
        if !self.only_validations_on_path() || self.loop_depth > 0 {
            return None;
        }
        let frame = self.function_frame()?;
        let FrameKind::Function { idx, .. } = &frame.kind else {
            return None;
        };
        let info = &self.summary.functions[*idx as usize];
        if info.name != "__init__" {
            return None;
        }
        let (param, derive): (&str, Derive) = match value {
            Expr::Name(name) => (name.id.as_str(), Derive::Same),
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => match &*unary.operand {
                Expr::Name(name) => (name.id.as_str(), Derive::Not),
                _ => return None,
            },
            Expr::Call(call)
                if call.arguments.keywords.is_empty()
                    && self.is_builtin(&call.func, "bool")
                    && let [Expr::Name(name)] = &*call.arguments.args =>
            {
                (name.id.as_str(), Derive::Bool)
            }
            Expr::Compare(compare)
                if compare.ops.len() == 1
                    && matches!(&*compare.comparators, [Expr::NoneLiteral(_)])
                    && let Expr::Name(name) = &*compare.left =>
            {
                match compare.ops[0] {
                    ast::CmpOp::Is => (name.id.as_str(), Derive::IsNone),
                    ast::CmpOp::IsNot => (name.id.as_str(), Derive::IsNotNone),
                    _ => return None,
                }
            }
            // `p or False`: the constant when the default is falsy.
            Expr::BoolOp(bool_op)
                if bool_op.op == ast::BoolOp::Or
                    && let [Expr::Name(name), fallback] = &*bool_op.values =>
            {
                (name.id.as_str(), Derive::OrElse(ConstValue::of(fallback)?))
            }
            // `p if p is not None else False` / `False if p is None else p`.
            Expr::If(choice) => {
                let Expr::Compare(compare) = &*choice.test else {
                    return None;
                };
                let Expr::Name(name) = &*compare.left else {
                    return None;
                };
                if compare.ops.len() != 1
                    || !matches!(&*compare.comparators, [Expr::NoneLiteral(_)])
                {
                    return None;
                }
                let (kept, fallback) = match compare.ops[0] {
                    ast::CmpOp::IsNot => (&*choice.body, &*choice.orelse),
                    ast::CmpOp::Is => (&*choice.orelse, &*choice.body),
                    _ => return None,
                };
                if !matches!(kept, Expr::Name(kept) if kept.id == name.id) {
                    return None;
                }
                (name.id.as_str(), Derive::IfNone(ConstValue::of(fallback)?))
            }
            _ => return None,
        };
        if !frame.holds_callers_value(param) {
            return None;
        }
        let default = info
            .param_defaults
            .iter()
            .find(|(name, _)| name == param)
            .map(|(_, default)| default.clone())?;
        let position = info
            .index_params
            .iter()
            .find(|(name, _)| name == param)
            .and_then(|(_, position)| *position);
        let value = match derive {
            Derive::Same => default.clone(),
            Derive::Not => ConstValue::Bool(!default.truthy()),
            Derive::Bool => ConstValue::Bool(default.truthy()),
            Derive::IsNone => ConstValue::Bool(default == ConstValue::None),
            Derive::IsNotNone => ConstValue::Bool(default != ConstValue::None),
            Derive::OrElse(ref fallback) if !default.truthy() => fallback.clone(),
            Derive::IfNone(ref fallback) if default == ConstValue::None => fallback.clone(),
            Derive::OrElse(_) | Derive::IfNone(_) => default.clone(),
        };
        let normalized = matches!(derive, Derive::OrElse(_) | Derive::IfNone(_));
        Some(OptionStore {
            class: class.to_owned(),
            attr: attr.to_owned(),
            param: param.to_owned(),
            position,
            default,
            value,
            normalized,
        })
    }

    /// `self.<attr> = self.<sub>.<inner>` / `= net.<inner>` at the top level of `__init__`, the
    /// submodule a project class the class builds (`self.<sub> = Inner(...)`) or receives (a
    /// local built by one, a parameter annotated with one): the attribute is the submodule's
    /// option `<inner>` when that one is an option nothing sets (decided when linking).
    fn borrowed_store(&self, class: &str, attr: &str, value: &Expr) -> Option<BorrowedStore> {
        if !self.path.is_empty() || self.loop_depth > 0 {
            return None;
        }
        let frame = self.function_frame()?;
        let FrameKind::Function { idx, .. } = &frame.kind else {
            return None;
        };
        if self.summary.functions[*idx as usize].name != "__init__" {
            return None;
        }
        let Expr::Attribute(read) = value else {
            return None;
        };
        let from = match self.self_attribute(&read.value) {
            Some((owner, sub)) => match self.self_attribute_type(&owner, &sub)? {
                sym @ (Sym::Dotted(_) | Sym::Local(_)) => sym.clone(),
                _ => return None,
            },
            None => self.instance_class(&read.value)?,
        };
        Some(BorrowedStore {
            class: class.to_owned(),
            attr: attr.to_owned(),
            from,
            from_attr: read.attr.id.to_string(),
        })
    }

    /// What a call passes by keyword and how many arguments it passes by position (under the
    /// called name; `super().__init__(...)` under each base of the enclosing class).
    pub(crate) fn note_option_args(&mut self, call: &ast::ExprCall) {
        // Every call in the file comes here: nothing is allocated unless the call adds a keyword
        // value or a called name not seen before in this file.
        for keyword in call.arguments.keywords.iter() {
            let Some(name) = &keyword.arg else { continue };
            let name = name.id.as_str();
            let passed = match ConstValue::of(&keyword.value) {
                Some(constant) => PassedValue::Const(constant),
                // `Inner(use_x=use_x)` passes the caller's own parameter of that name on: its
                // default, unless a call sets the caller's (same-named) option, which counts.
                None => match &keyword.value {
                    // From a plain function (a factory, `make(dim, drop=drop)`), whose calls are
                    // found by name: set when any call of it reaches the parameter, by keyword
                    // or position. From a method, the caller's default: measured on the three
                    // 2026-12-01 draws, also asking whether a constructor's own parameter is
                    // reached by position moved 8 right option-tier findings to the normal tier
                    // (positional counts are kept by called name only, and overcount).
                    Expr::Name(value) if value.id.as_str() == name => {
                        match self.own_param_default(name) {
                            Some(_) if !self.in_method() => match self.forwarded_param(name) {
                                Some(forwarded) => PassedValue::Forwarded(forwarded),
                                None => PassedValue::Other,
                            },
                            Some(default) => PassedValue::Const(default),
                            None => PassedValue::Other,
                        }
                    }
                    // `Base(flag=use_flag)`: the caller's own parameter under another name.
                    Expr::Name(value) => match self.forwarded_param(value.id.as_str()) {
                        Some(forwarded) => PassedValue::Forwarded(forwarded),
                        None => PassedValue::Other,
                    },
                    // `Inner(opt=self.opt)`: the calling class's own option, if it is one.
                    Expr::Attribute(attribute) => {
                        match (&*attribute.value, self.method_context()) {
                            (Expr::Name(owner), Some((self_name, class)))
                                if owner.id.as_str() == self_name =>
                            {
                                PassedValue::FromSelf {
                                    class: class.to_owned(),
                                    attr: attribute.attr.id.to_string(),
                                }
                            }
                            _ => PassedValue::Other,
                        }
                    }
                    _ => PassedValue::Other,
                },
            };
            let keywords = &mut self.summary.options.keywords;
            match keywords.get_mut(name) {
                Some(values) => {
                    if !values.contains(&passed) {
                        values.push(passed);
                    }
                }
                None => {
                    keywords.insert(name.to_owned(), vec![passed]);
                }
            }
        }
        let args = &call.arguments.args;
        // Trailing arguments that pass the caller's own parameter on are not counted as
        // reaching their places: linking decides them from the caller's default.
        let mut trailing: Vec<(u32, ForwardedParam)> = Vec::new();
        let positional = if args.iter().any(|a| matches!(a, Expr::Starred(_))) {
            u32::MAX
        } else {
            let mut counted = args.len();
            while counted > 0 {
                let Expr::Name(name) = &args[counted - 1] else {
                    break;
                };
                let Some(forwarded) = self.forwarded_param(name.id.as_str()) else {
                    break;
                };
                counted -= 1;
                trailing.push((counted as u32, forwarded));
            }
            counted as u32
        };
        match &*call.func {
            Expr::Name(name) if name.id.as_str() == "partial" => {
                if let Some(first) = call.arguments.args.first()
                    && let Some(called) = called_name(first)
                {
                    self.note_positional(
                        called,
                        positional.saturating_sub(1),
                        positional,
                        &trailing,
                    );
                }
            }
            Expr::Attribute(attribute) if attribute.attr.id.as_str() == "partial" => {
                if let Some(first) = call.arguments.args.first()
                    && let Some(called) = called_name(first)
                {
                    self.note_positional(
                        called,
                        positional.saturating_sub(1),
                        positional,
                        &trailing,
                    );
                }
            }
            Expr::Attribute(attribute) if attribute.attr.id.as_str() == "__init__" => {
                match &*attribute.value {
                    // `super().__init__(a, b)`: the bases of the enclosing class.
                    Expr::Call(_) => {
                        if (positional > 0 || !trailing.is_empty())
                            && let Some((_, class)) = self.method_context()
                            && let Some(&class_idx) = self.summary.class_by_name.get(class)
                        {
                            let bases: Vec<String> = self.summary.classes[class_idx as usize]
                                .bases
                                .iter()
                                .map(|base| base.last_segment().to_owned())
                                .collect();
                            for base in &bases {
                                self.note_positional(base, positional, positional, &trailing);
                            }
                        }
                    }
                    // `Base.__init__(self, a, b)`.
                    other => {
                        if let Some(called) = called_name(other) {
                            self.note_positional(
                                called,
                                positional.saturating_sub(1),
                                positional,
                                &trailing,
                            );
                        }
                    }
                }
            }
            other => {
                if let Some(called) = called_name(other) {
                    self.note_positional(called, positional, positional, &trailing);
                }
            }
        }
        // `setattr(obj, "use_ema", True)`.
        if matches!(&*call.func, Expr::Name(name) if name.id.as_str() == "setattr")
            && let Some(Expr::StringLiteral(attr)) = call.arguments.args.get(1)
        {
            let attr = attr.value.to_str();
            self.note_setting_store(None, attr);
            let written = &mut self.summary.options.written_anywhere;
            if !written.contains(attr) {
                written.insert(attr.to_owned());
            }
        }
    }

    /// A call passes `count` positional arguments to `callee` (none: nothing to note).
    /// `count` positional arguments reach `callee`'s places (shifted from the call's `positional`
    /// for `Base.__init__(self, ...)` and `partial`); the `trailing` ones that forward the caller's
    /// own parameter are noted apart, at their shifted positions.
    fn note_positional(
        &mut self,
        callee: &str,
        count: u32,
        positional: u32,
        trailing: &[(u32, ForwardedParam)],
    ) {
        let shift = positional.saturating_sub(count);
        for (position, forwarded) in trailing {
            if let Some(position) = position.checked_sub(shift) {
                self.summary.options.positional_forwards.push((
                    callee.to_owned(),
                    position,
                    forwarded.clone(),
                ));
            }
        }
        if count > 0 {
            note_max(&mut self.summary.options.positional, callee, count);
        }
    }

    /// The current function's unchanged parameter `name` with a literal default, as passed on
    /// to a call (`PassedValue::Forwarded`): named for the calls of the function (its class for
    /// `__init__`).
    fn forwarded_param(&self, name: &str) -> Option<ForwardedParam> {
        let default = self.own_param_default(name)?;
        let frame = self.function_frame()?;
        let FrameKind::Function { idx, .. } = &frame.kind else {
            return None;
        };
        let info = &self.summary.functions[*idx as usize];
        let caller = match (&info.class, info.name.as_str()) {
            (Some(class), "__init__") => class.rsplit('.').next().unwrap_or(class).to_owned(),
            (None, name) => name.to_owned(),
            // A method's callers are not found by name alone.
            (Some(_), _) => return None,
        };
        let position = info
            .index_params
            .iter()
            .find(|(param, _)| param == name)
            .and_then(|(_, position)| *position);
        Some(ForwardedParam {
            caller,
            param: name.to_owned(),
            position,
            default,
        })
    }

    /// Is the current function a method (of a class)?
    fn in_method(&self) -> bool {
        self.function_frame()
            .is_some_and(|frame| match &frame.kind {
                FrameKind::Function { idx, .. } => {
                    self.summary.functions[*idx as usize].class.is_some()
                }
                _ => false,
            })
    }

    /// The literal default of the current function's parameter `name`, when it is unchanged.
    fn own_param_default(&self, name: &str) -> Option<ConstValue> {
        let frame = self.function_frame()?;
        let FrameKind::Function { idx, .. } = &frame.kind else {
            return None;
        };
        if !frame.holds_callers_value(name) {
            return None;
        }
        self.summary.functions[*idx as usize]
            .param_defaults
            .iter()
            .find(|(param, _)| param == name)
            .map(|(_, default)| default.clone())
    }
}

/// How an option attribute derives from its parameter.
enum Derive {
    /// `p or <constant>`.
    OrElse(ConstValue),
    /// `p if p is not None else <constant>`.
    IfNone(ConstValue),
    Same,
    Not,
    Bool,
    IsNone,
    IsNotNone,
}

/// The last name of a called expression (`Net`, `mod.Net`).
fn called_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Name(name) => Some(name.id.as_str()),
        Expr::Attribute(attribute) => Some(attribute.attr.id.as_str()),
        _ => None,
    }
}

/// `table[name] = max(table[name], count)`, allocating the name only when it is new.
fn note_max(table: &mut rustc_hash::FxHashMap<String, u32>, name: &str, count: u32) {
    match table.get_mut(name) {
        Some(max) => *max = (*max).max(count),
        None => {
            table.insert(name.to_owned(), count);
        }
    }
}
