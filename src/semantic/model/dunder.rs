//! Implicit calls: Python syntax that calls a method of the operand's class without a call
//! expression (`obj.attr = x` runs `type(obj).__setattr__`, `obj[k]` runs `__getitem__`,
//! `a != b` runs `__ne__`, whose default falls back to `__eq__`). Dynamo inlines these methods
//! like any call, so a project class's dunder is a call edge of the function that uses the syntax.

use super::*;

impl<'a> SemanticModel<'a> {
    /// Call edges from the current function to `dunders` of the class `receiver` is an instance
    /// of (when the model knows it: a constructor, a local built by one, an annotated
    /// parameter). A dunder the class does not define resolves to nothing when linking.
    pub(crate) fn record_implicit_dunders(
        &mut self,
        receiver: &'a Expr,
        dunders: &[&'a str],
        row_at: TextSize,
    ) {
        // Only a name (`self`, a local, a parameter) or a constructor call has a class here.
        if !matches!(receiver, Expr::Name(_) | Expr::Call(_)) || dunders.is_empty() {
            return;
        }
        let Some(func) = self.current_function() else {
            return;
        };
        // `self.x = v`, `self[k]`, `len(self)`: the method's own class (or the subclass
        // override `self` is an instance of) — Dynamo inlines a project `__setattr__` for every
        // attribute store on `self` (test_reach_proofs.py).
        let own_class = match receiver {
            Expr::Name(name) => self
                .method_context()
                .filter(|(self_name, _)| *self_name == name.id.as_str())
                .map(|(_, class)| class.to_owned()),
            _ => None,
        };
        if let Some(own) = own_class {
            let mut row = None;
            for dunder in dunders {
                // One edge per dunder and guard path: a method stores many attributes on `self`.
                if self.has_self_edge(func, &own, dunder) {
                    continue;
                }
                let row = *row.get_or_insert_with(|| self.row(row_at.into()));
                self.push_dunder_edge(
                    func,
                    Sym::SelfAttr {
                        class: own.clone(),
                        attr: (*dunder).to_owned(),
                    },
                    row,
                );
            }
            return;
        }
        let Some(class) = self.instance_class(receiver) else {
            self.note_param_dunders(receiver, dunders, row_at);
            return;
        };
        let row = self.row(row_at.into());
        for dunder in dunders {
            let sym = Sym::Instance {
                class: Box::new(class.clone()),
                method: (*dunder).to_owned(),
            };
            self.push_dunder_edge(func, sym, row);
        }
    }

    fn push_dunder_edge(&mut self, func: FuncIdx, sym: Sym, row: u32) {
        let edge = CallEdge {
            sym,
            path: self.path.as_slice().into(),
            row,
            args: None,
            host_index_args: Box::default(),
            tensor_args: Box::default(),
        };
        self.summary.functions[func as usize].calls.push(edge);
    }

    /// Whether `func` has an edge to `self.<dunder>` (of `class`) on the current path, whoever
    /// recorded it. Found through a hash of the three, kept up to date by reading the edges
    /// recorded since the last question (each edge is read once): a method's hundreds of
    /// attribute stores cost one lookup each, not a scan of its edges.
    fn has_self_edge(&mut self, func: FuncIdx, class: &str, dunder: &str) -> bool {
        let calls = &self.summary.functions[func as usize].calls;
        let indexed = self.self_dunder_indexed.entry(func).or_insert(0);
        for (index, call) in calls.iter().enumerate().skip(*indexed as usize) {
            if let Sym::SelfAttr { class, attr } = &call.sym
                && attr.starts_with("__")
            {
                let key = self_edge_key(func, class, attr, &call.path);
                self.self_dunder_index
                    .entry(key)
                    .or_default()
                    .push(index as u32);
            }
        }
        *indexed = calls.len() as u32;
        let key = self_edge_key(func, class, dunder, &self.path);
        self.self_dunder_index.get(&key).is_some_and(|indices| {
            indices.iter().any(|&index| {
                let edge = &calls[index as usize];
                matches!(&edge.sym, Sym::SelfAttr { class: c, attr } if c == class && attr == dunder)
                    && *edge.path == *self.path
            })
        })
    }
}

fn self_edge_key(func: FuncIdx, class: &str, attr: &str, path: &[PathStep]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    func.hash(&mut hasher);
    class.hash(&mut hasher);
    attr.hash(&mut hasher);
    path.hash(&mut hasher);
    hasher.finish()
}

/// The methods a comparison operator calls on its left operand (reflected methods of the right
/// operand are left out: they run only when the left one returns `NotImplemented`).
pub(crate) fn comparison_dunders(op: ast::CmpOp) -> &'static [&'static str] {
    match op {
        ast::CmpOp::Eq => &["__eq__"],
        // object.__ne__ inverts __eq__ unless the class defines its own __ne__
        ast::CmpOp::NotEq => &["__ne__", "__eq__"],
        ast::CmpOp::Lt => &["__lt__"],
        ast::CmpOp::LtE => &["__le__"],
        ast::CmpOp::Gt => &["__gt__"],
        ast::CmpOp::GtE => &["__ge__"],
        ast::CmpOp::In | ast::CmpOp::NotIn => &[],
        ast::CmpOp::Is | ast::CmpOp::IsNot => &[],
    }
}

impl<'a> SemanticModel<'a> {
    /// The implicit calls an expression makes on project instances: operators, `x in obj`,
    /// `len(obj)` / `iter(obj)` / `next(obj)`, and iteration in a comprehension.
    pub(crate) fn record_expression_dunders(&mut self, expr: &'a Expr) {
        // Outside a function `record_implicit_dunders` records nothing; most expressions match
        // no arm, so the frame walk is left to it.
        match expr {
            Expr::BinOp(binop) => {
                if let Some((method, reflected)) = binary_dunders(binop.op) {
                    self.record_implicit_dunders(&binop.left, &[method], binop.start());
                    self.record_implicit_dunders(&binop.right, &[reflected], binop.start());
                }
            }
            Expr::UnaryOp(unary) => {
                let dunder = match unary.op {
                    ast::UnaryOp::USub => "__neg__",
                    ast::UnaryOp::UAdd => "__pos__",
                    ast::UnaryOp::Invert => "__invert__",
                    ast::UnaryOp::Not => "__bool__",
                };
                self.record_implicit_dunders(&unary.operand, &[dunder], unary.start());
            }
            Expr::Compare(compare) => {
                // `a in b` asks the right operand: `b.__contains__(a)`.
                for (op, right) in compare.ops.iter().zip(compare.comparators.iter()) {
                    if matches!(op, ast::CmpOp::In | ast::CmpOp::NotIn) {
                        self.record_implicit_dunders(right, &["__contains__"], compare.start());
                    }
                }
            }
            Expr::Call(call) => {
                let [operand] = &*call.arguments.args else {
                    return;
                };
                let dunders: &[&str] = if self.is_builtin(&call.func, "len") {
                    &["__len__"]
                } else if self.is_builtin(&call.func, "iter") {
                    &["__iter__"]
                } else if self.is_builtin(&call.func, "next") {
                    &["__next__"]
                } else {
                    return;
                };
                self.record_implicit_dunders(operand, dunders, call.start());
            }
            // `box.top` on an instance of a project class: a property getter runs (a plain
            // method read is a bound method, called or passed on). `self.x` reads are
            // `model/references.rs`'s.
            Expr::Attribute(attribute)
                if attribute.ctx.is_load()
                    && matches!(&*attribute.value, Expr::Name(_) | Expr::Call(_))
                    && !matches!(&*attribute.value, Expr::Name(name)
                        if self.method_context().is_some_and(|(me, _)| me == name.id.as_str())) =>
            {
                self.record_implicit_dunders(
                    &attribute.value,
                    &[attribute.attr.id.as_str()],
                    attribute.start(),
                );
            }
            Expr::ListComp(ast::ExprListComp { generators, .. })
            | Expr::SetComp(ast::ExprSetComp { generators, .. })
            | Expr::DictComp(ast::ExprDictComp { generators, .. })
            | Expr::Generator(ast::ExprGenerator { generators, .. }) => {
                for generator in generators {
                    self.record_implicit_dunders(&generator.iter, ITERATION, generator.start());
                }
            }
            _ => {}
        }
    }

    /// The implicit calls a statement makes on project instances: `for x in obj`, `with obj:`,
    /// `obj += y`.
    pub(crate) fn record_statement_dunders(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::For(stmt_for) => {
                self.record_implicit_dunders(&stmt_for.iter, ITERATION, stmt_for.start());
            }
            Stmt::With(with) => {
                let dunders: &[&str] = if with.is_async {
                    &["__aenter__", "__aexit__"]
                } else {
                    &["__enter__", "__exit__"]
                };
                for item in &with.items {
                    self.record_implicit_dunders(&item.context_expr, dunders, with.start());
                }
            }
            Stmt::AugAssign(assign) => {
                // Only the in-place method: where the class has none, Python falls back to the
                // binary one but Dynamo 2.11 breaks on the statement instead (measured:
                // test_reach_proofs.py).
                if let Some(method) = inplace_dunder(assign.op) {
                    self.record_implicit_dunders(&assign.target, &[method], assign.start());
                }
            }
            _ => {}
        }
    }
}

/// A `for` loop calls `iter(obj)`, then `__next__` on what it returned (the object itself for a
/// class that is its own iterator; a method the class does not define resolves to nothing).
const ITERATION: &[&str] = &["__iter__", "__next__"];

/// The method a binary operator calls on its left operand, and the reflected one it calls on the
/// right. `@` is left out: Dynamo 2.11 does not trace `__matmul__` of a user class, it breaks on
/// the operator (measured: test_reach_proofs.py).
fn binary_dunders(op: ast::Operator) -> Option<(&'static str, &'static str)> {
    Some(match op {
        ast::Operator::Add => ("__add__", "__radd__"),
        ast::Operator::Sub => ("__sub__", "__rsub__"),
        ast::Operator::Mult => ("__mul__", "__rmul__"),
        ast::Operator::Div => ("__truediv__", "__rtruediv__"),
        ast::Operator::FloorDiv => ("__floordiv__", "__rfloordiv__"),
        ast::Operator::Mod => ("__mod__", "__rmod__"),
        ast::Operator::Pow => ("__pow__", "__rpow__"),
        ast::Operator::LShift => ("__lshift__", "__rlshift__"),
        ast::Operator::RShift => ("__rshift__", "__rrshift__"),
        ast::Operator::BitOr => ("__or__", "__ror__"),
        ast::Operator::BitXor => ("__xor__", "__rxor__"),
        ast::Operator::BitAnd => ("__and__", "__rand__"),
        ast::Operator::MatMult => return None,
    })
}

fn inplace_dunder(op: ast::Operator) -> Option<&'static str> {
    Some(match op {
        ast::Operator::Add => "__iadd__",
        ast::Operator::Sub => "__isub__",
        ast::Operator::Mult => "__imul__",
        ast::Operator::Div => "__itruediv__",
        ast::Operator::FloorDiv => "__ifloordiv__",
        ast::Operator::Mod => "__imod__",
        ast::Operator::Pow => "__ipow__",
        ast::Operator::LShift => "__ilshift__",
        ast::Operator::RShift => "__irshift__",
        ast::Operator::BitOr => "__ior__",
        ast::Operator::BitXor => "__ixor__",
        ast::Operator::BitAnd => "__iand__",
        ast::Operator::MatMult => return None,
    })
}
