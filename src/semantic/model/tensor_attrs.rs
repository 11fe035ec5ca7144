//! Module attributes that hold tensors: `self.register_buffer("ready", torch.tensor(False))`,
//! `self.register_parameter("w", nn.Parameter(...))`, `self.w = nn.Parameter(...)`, `self.w =
//! torch.zeros(...)` in any method of the class (or of a base class defined in the same file).
//!
//! Why it matters: Dynamo treats a module's parameters, buffers and plain tensor attributes as
//! tensors of the graph, so a Python branch on one (`if self.ready:`, `if self.training and
//! self.w > 0:`) is a data-dependent jump like any other (measured on torch 2.2, 2.5, 2.8, 2.11:
//! a graph break for a registered bool buffer, an `nn.Parameter` and a plain `torch.zeros`
//! attribute, eval and train mode).
//!
//! An attribute is a tensor only when every assignment the walk has seen gives it a tensor: one
//! assignment of anything else (`self.w = 0.0`, `self.w = w` from an unannotated parameter,
//! `register_buffer("w", None)`) makes it unknown.

use super::*;

/// What the assignments of one `self.<attr>` seen so far put in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AttrHolds {
    Tensor,
    Other,
}

/// Spellings of torch's tensor subclasses that a module registers as parameters or buffers.
const PARAMETER_CLASSES: &[&str] = &[
    "torch.nn.Parameter",
    "torch.nn.parameter.Parameter",
    "torch.nn.Buffer",
    "torch.nn.parameter.Buffer",
];

impl<'a> SemanticModel<'a> {
    /// `self.attr = value` in a method: records whether `value` is a tensor.
    pub(crate) fn note_tensor_attribute_assignment(&mut self, target: &Expr, value: &Expr) {
        let Some((class, attr)) = self.self_attribute(target) else {
            return;
        };
        let holds = if self.is_tensor_value(value) {
            AttrHolds::Tensor
        } else {
            AttrHolds::Other
        };
        self.record_attr_holds(class, attr, holds);
    }

    /// `self.register_buffer("name", value)` / `self.register_parameter("name", value)`.
    pub(crate) fn note_tensor_attribute_registration(&mut self, call: &ast::ExprCall) {
        let Expr::Attribute(method) = &*call.func else {
            return;
        };
        if !matches!(
            method.attr.id.as_str(),
            "register_buffer" | "register_parameter"
        ) {
            return;
        }
        let Expr::Name(receiver) = &*method.value else {
            return;
        };
        let Some((self_name, class)) = self.method_context() else {
            return;
        };
        if receiver.id.as_str() != self_name {
            return;
        }
        let class = class.to_owned();
        let name = call
            .arguments
            .args
            .first()
            .or_else(|| call.arguments.find_keyword("name").map(|k| &k.value));
        let value = call.arguments.args.get(1).or_else(|| {
            call.arguments
                .find_keyword("tensor")
                .or_else(|| call.arguments.find_keyword("param"))
                .map(|k| &k.value)
        });
        let Some(Expr::StringLiteral(name)) = name else {
            return;
        };
        // A buffer or parameter holds a tensor or `None`; only a literal `None` (or a value we
        // cannot see) leaves the attribute unknown.
        let holds = match value {
            Some(Expr::NoneLiteral(_)) | None => AttrHolds::Other,
            Some(_) => AttrHolds::Tensor,
        };
        self.record_attr_holds(class, name.value.to_str().to_owned(), holds);
    }

    fn record_attr_holds(&mut self, class: String, attr: String, holds: AttrHolds) {
        let entry = self.tensor_attrs.entry((class, attr)).or_insert(holds);
        if holds == AttrHolds::Other {
            *entry = AttrHolds::Other;
        }
    }

    fn is_tensor_value(&self, value: &Expr) -> bool {
        if let Expr::Call(call) = value
            && let Some(qualified) = self.qualified(&call.func)
            && PARAMETER_CLASSES.contains(&qualified.as_str())
        {
            return true;
        }
        self.tensor_kind(value) == TensorKind::Tensor
    }

    /// Is `attribute` a read of `self.<attr>` that every assignment seen so far (in this class or
    /// a base class of this file) made a tensor?
    pub(crate) fn is_tensor_self_attribute(&self, attribute: &ast::ExprAttribute) -> bool {
        if self.tensor_attrs.is_empty() {
            return false;
        }
        let Expr::Name(base) = &*attribute.value else {
            return false;
        };
        let Some((self_name, class)) = self.method_context() else {
            return false;
        };
        if base.id.as_str() != self_name {
            return false;
        }
        let attr = attribute.attr.id.as_str();
        let mut class = class.to_owned();
        // The class, then its first base defined in this file, a few levels up.
        for _ in 0..4 {
            if let Some(holds) = self.tensor_attrs.get(&(class.clone(), attr.to_owned())) {
                return *holds == AttrHolds::Tensor;
            }
            let Some(next) = self.local_base_class(&class) else {
                return false;
            };
            class = next;
        }
        false
    }

    /// The first base of `class` that is a class of this file.
    pub(super) fn local_base_class(&self, class: &str) -> Option<String> {
        let idx = *self.summary.class_by_name.get(class)?;
        let info = self.summary.classes.get(idx as usize)?;
        info.bases.iter().find_map(|base| match base {
            Sym::Local(qual) if self.summary.class_by_name.contains_key(qual) => Some(qual.clone()),
            _ => None,
        })
    }
}
