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
        receiver: &Expr,
        dunders: &[&str],
        row_at: TextSize,
    ) {
        let Some(func) = self.current_function() else {
            return;
        };
        let Some(class) = self.instance_class(receiver) else {
            return;
        };
        let row = self.location(row_at.into()).row;
        for dunder in dunders {
            let edge = CallEdge {
                sym: Sym::Instance {
                    class: Box::new(class.clone()),
                    method: (*dunder).to_owned(),
                },
                path: self.path.as_slice().into(),
                row,
                args: None,
                host_index_args: Box::default(),
            };
            self.summary.functions[func as usize].calls.push(edge);
        }
    }
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
