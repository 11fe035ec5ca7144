//! What an `isinstance` test says about a parameter's tensor-ness. A parameter the body tests
//! with `isinstance` takes several types, so the parameter hypothesis ("a tensor where a call
//! passes one", `model/tensor_args.rs`) is off for it in general; inside
//! `if isinstance(p, torch.Tensor):` (or `isinstance(p, (Tensor, Parameter))`, or such a test
//! among the operands of `and`), and after `if not isinstance(p, torch.Tensor): <leaves>`, the
//! code runs only for a tensor, so there the hypothesis holds again: a finding there is a break
//! where some traced call passes a tensor for `p`.
//!
//! Locals are left alone: one the walk knows holds a host value on every path makes the branch
//! dead, one it knows holds a tensor needs no test, and one of unknown kind (a helper's result)
//! is no more a tensor for being tested (defensive code converts values that never come).

use super::*;

/// How many parameters were narrowed before a test (`Frame::tensor_narrowed_params`), to be
/// put back when its branch ends.
pub(crate) struct TensorNarrowing(usize);

impl<'a> SemanticModel<'a> {
    /// Entering the true branch of `test`.
    pub(crate) fn enter_tensor_narrowing(&mut self, test: &'a Expr) -> TensorNarrowing {
        let mut names = Vec::new();
        self.tensor_tested_names(test, &mut names);
        let Some(frame) = self.function_frame_mut() else {
            return TensorNarrowing(0);
        };
        let before = frame.tensor_narrowed_params.len();
        narrow_params(frame, names);
        TensorNarrowing(before)
    }

    pub(crate) fn leave_tensor_narrowing(&mut self, narrowing: TensorNarrowing) {
        if let Some(frame) = self.function_frame_mut() {
            frame.tensor_narrowed_params.truncate(narrowing.0);
        }
    }

    /// After `if not isinstance(p, Tensor): <leaves>` with no other branch: for the rest of the
    /// function (the frame goes with it).
    pub(crate) fn narrow_after_exit(&mut self, stmt_if: &'a ast::StmtIf) {
        if !stmt_if.elif_else_clauses.is_empty() || !path_ends(&stmt_if.body) {
            return;
        }
        let Expr::UnaryOp(unary) = &*stmt_if.test else {
            return;
        };
        if unary.op != ast::UnaryOp::Not {
            return;
        }
        let mut names = Vec::new();
        self.tensor_tested_names(&unary.operand, &mut names);
        if let Some(frame) = self.function_frame_mut() {
            narrow_params(frame, names);
        }
    }

    /// `isinstance(name, C)` where every class `C` names is a tensor class, alone or as an
    /// operand of `and`.
    fn tensor_tested_names(&self, test: &'a Expr, out: &mut Vec<&'a str>) {
        match test {
            Expr::BoolOp(boolop) if boolop.op == ast::BoolOp::And => {
                for value in &boolop.values {
                    self.tensor_tested_names(value, out);
                }
            }
            Expr::Call(call)
                if call.arguments.keywords.is_empty()
                    && self.is_builtin(&call.func, "isinstance") =>
            {
                let [Expr::Name(name), classes] = &*call.arguments.args else {
                    return;
                };
                let all_tensor_classes = match classes {
                    Expr::Tuple(tuple) => {
                        !tuple.elts.is_empty() && tuple.elts.iter().all(|c| self.is_tensor_class(c))
                    }
                    other => self.is_tensor_class(other),
                };
                if all_tensor_classes && !out.contains(&name.id.as_str()) {
                    out.push(name.id.as_str());
                }
            }
            _ => {}
        }
    }

    /// `torch.Tensor`, `torch.nn.Parameter`, ...: the classes annotations name as tensors.
    fn is_tensor_class(&self, class: &Expr) -> bool {
        self.qualified(class)
            .is_some_and(|q| q.starts_with("torch.") && TORCH.tensor_annotations.contains(&q))
    }
}

/// The names that are parameters the body has not rebound.
fn narrow_params<'a>(frame: &mut Frame<'a>, names: Vec<&'a str>) {
    for name in names {
        if frame.is_unrebound_param(name) {
            frame.tensor_narrowed_params.push(name);
        }
    }
}
