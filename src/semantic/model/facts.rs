//! Facts about expressions: tensor-ness, host-built tensors, `_shape_as_tensor` values. Read by
//! rules through the model; the knowledge comes from `rules/data/tensor.toml`.

use super::{Binding, MAX_EXPR_DEPTH, SemanticModel};
use crate::semantic::data::TORCH;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};

/// Whether a search looks through a local to the value last assigned to it. Locals are followed
/// one hop only: `h = h + r` must not recurse into itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Follow {
    Locals,
    NotLocals,
}

impl<'a> SemanticModel<'a> {
    pub fn tensor_kind(&self, expr: &Expr) -> TensorKind {
        self.tensor_kind_depth(expr, 0)
    }

    fn tensor_kind_depth(&self, expr: &Expr, depth: u32) -> TensorKind {
        if depth > MAX_EXPR_DEPTH {
            return TensorKind::Unknown;
        }
        match expr {
            Expr::Name(name) => {
                if let Some(frame) = self.function_frame()
                    && let Some(kind) = frame.locals.get(name.id.as_str())
                {
                    if *kind == TensorKind::Unknown {
                        return self.hypothetical_param_kind(name.id.as_str());
                    }
                    return *kind;
                }
                TensorKind::Unknown
            }
            Expr::Attribute(attribute) => {
                if TORCH
                    .metadata_attributes
                    .contains(attribute.attr.id.as_str())
                {
                    TensorKind::NotTensor
                } else if (TORCH.tensor_attributes.contains(attribute.attr.id.as_str())
                    && self.tensor_kind_depth(&attribute.value, depth + 1) == TensorKind::Tensor)
                    // `self.ready` for a registered buffer, a parameter, a tensor attribute.
                    || self.is_tensor_self_attribute(attribute)
                {
                    TensorKind::Tensor
                } else {
                    TensorKind::Unknown
                }
            }
            Expr::Call(call) => self.call_kind(call, depth),
            Expr::Compare(compare) => {
                use ast::CmpOp;
                if compare
                    .ops
                    .iter()
                    .all(|op| matches!(op, CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn))
                {
                    return TensorKind::NotTensor;
                }
                let mut all_host = true;
                for operand in std::iter::once(&*compare.left).chain(compare.comparators.iter()) {
                    match self.tensor_kind_depth(operand, depth + 1) {
                        TensorKind::Tensor => return TensorKind::Tensor,
                        TensorKind::Unknown => all_host = false,
                        TensorKind::NotTensor => {}
                    }
                }
                if all_host {
                    TensorKind::NotTensor
                } else {
                    TensorKind::Unknown
                }
            }
            Expr::BinOp(binop) => {
                let left = self.tensor_kind_depth(&binop.left, depth + 1);
                let right = self.tensor_kind_depth(&binop.right, depth + 1);
                match (left, right) {
                    (TensorKind::Tensor, _) | (_, TensorKind::Tensor) => TensorKind::Tensor,
                    (TensorKind::NotTensor, TensorKind::NotTensor) => TensorKind::NotTensor,
                    _ => TensorKind::Unknown,
                }
            }
            Expr::UnaryOp(unary) => match unary.op {
                ast::UnaryOp::Not => TensorKind::NotTensor,
                _ => self.tensor_kind_depth(&unary.operand, depth + 1),
            },
            Expr::Subscript(subscript) => match self.tensor_kind_depth(&subscript.value, depth + 1)
            {
                TensorKind::Tensor => TensorKind::Tensor,
                TensorKind::NotTensor => TensorKind::NotTensor,
                TensorKind::Unknown => TensorKind::Unknown,
            },
            Expr::NumberLiteral(_)
            | Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::EllipsisLiteral(_)
            | Expr::FString(_)
            | Expr::List(_)
            | Expr::Tuple(_)
            | Expr::Dict(_)
            | Expr::Set(_)
            | Expr::ListComp(_)
            | Expr::DictComp(_)
            | Expr::SetComp(_)
            | Expr::Lambda(_) => TensorKind::NotTensor,
            Expr::Named(named) => self.tensor_kind_depth(&named.value, depth + 1),
            _ => TensorKind::Unknown,
        }
    }

    fn call_kind(&self, call: &ast::ExprCall, depth: u32) -> TensorKind {
        if let Expr::Name(name) = &*call.func
            && let Some(Binding::Class(qual)) = self.lookup(name.id.as_str())
            && self.is_plain_class(qual, 0)
        {
            // An instance of a class of this file that derives from nothing but other such
            // classes (or `object`) is no tensor: `tape = Tape()` then `tape.backward()`.
            return TensorKind::NotTensor;
        }
        if let Expr::Name(name) = &*call.func
            && self.lookup(name.id.as_str()).is_none()
        {
            // Builtins: all return host values (or are opaque).
            return if TORCH.host_builtins.contains(name.id.as_str()) {
                TensorKind::NotTensor
            } else {
                TensorKind::Unknown
            };
        }
        if let Some(qualified) = self.qualified(&call.func) {
            return torch_callable_returns_tensor(&qualified);
        }
        if let Expr::Attribute(attribute) = &*call.func {
            let method = attribute.attr.id.as_str();
            // The hand list, then the Tensor methods torch annotates as returning host values
            // (`is_contiguous() -> bool`). Only host answers come from the annotations: a
            // tensor answer for a method name would also claim `name.split(".")` on a string.
            if TORCH.host_value_methods.contains(method)
                || TORCH.generated.host_tensor_methods.contains(method)
            {
                return TensorKind::NotTensor;
            }
            if TORCH.tensor_returning_methods.contains(method)
                && self.receiver_may_be_tensor(&attribute.value, depth)
            {
                return TensorKind::Tensor;
            }
            // Any other method torch annotates as returning a tensor, on a receiver known to be
            // one (`torch.zeros(n).uniform_(0, 1)`): the receiver makes it `Tensor.<method>`.
            if TORCH.generated.tensor_tensor_methods.contains(method)
                && self.tensor_kind_depth(&attribute.value, depth + 1) == TensorKind::Tensor
            {
                return TensorKind::Tensor;
            }
        }
        TensorKind::Unknown
    }

    /// A class statement of this file (already walked) whose bases are all such classes, or
    /// none (`object`): its instances are plain Python objects. A base from an import, a call or
    /// anything unresolved may be `torch.Tensor` or a subclass, so it is not plain.
    fn is_plain_class(&self, qual: &str, depth: u32) -> bool {
        if depth > 8 {
            return false;
        }
        if !self.summary.class_by_name.contains_key(qual) {
            return false;
        }
        self.class_bases(qual).iter().all(|base| match base {
            crate::semantic::Sym::Local(base) => self.is_plain_class(base, depth + 1),
            _ => false,
        })
    }

    /// The bases of the class statement `qual` of this file as written (resolved names); empty
    /// when `qual` is no class of this file (walked so far).
    pub(super) fn class_bases(&self, qual: &str) -> &[crate::semantic::Sym] {
        match self.summary.class_by_name.get(qual) {
            Some(&idx) => &self.summary.classes[idx as usize].bases,
            None => &[],
        }
    }

    /// A method receiver that could be a tensor: not a host value, not `self`, not a module.
    pub fn receiver_may_be_tensor(&self, receiver: &Expr, depth: u32) -> bool {
        if let Expr::Name(name) = receiver {
            if let Some((self_name, _)) = self.method_context()
                && name.id.as_str() == self_name
            {
                return false;
            }
            if matches!(
                self.lookup(name.id.as_str()),
                Some(Binding::Import(_) | Binding::Def(_) | Binding::Class(_))
            ) {
                return false;
            }
        }
        if matches!(receiver, Expr::Attribute(_)) && self.qualified(receiver).is_some() {
            return false;
        }
        self.tensor_kind_depth(receiver, depth + 1) != TensorKind::NotTensor
    }

    /// Whether `expr` is a tensor this frame computed: an op's result, a tensor method's result
    /// (in-place ones included), a slice or view of a tensor, or a local last assigned one. Dynamo
    /// tracks such a tensor with no source — it is not an input, a parameter, a buffer or a
    /// global's tensor — so what needs a source (storing `.data`) cannot be traced. A local is
    /// followed one hop (`z = torch.zeros(n)` then `z`); anything unknown is not computed.
    pub fn is_tensor_computed_in_frame(&self, expr: &Expr) -> bool {
        let value = match expr {
            Expr::Name(name) => match self.local_value(name.id.as_str()) {
                Some(value) => value,
                None => return false,
            },
            other => other,
        };
        match value {
            Expr::Call(_) | Expr::BinOp(_) | Expr::UnaryOp(_) => {
                self.tensor_kind(value) == TensorKind::Tensor
            }
            Expr::Subscript(subscript) => self.tensor_kind(&subscript.value) == TensorKind::Tensor,
            _ => false,
        }
    }

    /// Whether `expr` is a tensor whose value depends on tensor data (an input, a parameter, a
    /// tensor computed from them), not only on host numbers: `lengths.max()`, `mask.sum()`,
    /// `counts[0]`. A tensor made by torch functions from ints and shapes alone
    /// (`torch.div(h.size(1), 2)`, `torch.tensor(n)`) is not: Dynamo folds it and knows its
    /// value. A torch function whose operands are all of unknown kind counts as computing on
    /// tensors; one that mixes them with known host numbers, as computing on numbers.
    pub fn is_data_dependent_tensor(&self, expr: &Expr) -> bool {
        self.tensor_kind(expr) == TensorKind::Tensor && self.depends_on_tensor_data(expr, 0)
    }

    fn depends_on_tensor_data(&self, expr: &Expr, depth: u32) -> bool {
        if depth > MAX_EXPR_DEPTH {
            return false;
        }
        let data = |e: &Expr| {
            self.tensor_kind(e) == TensorKind::Tensor && self.depends_on_tensor_data(e, depth + 1)
        };
        match expr {
            Expr::Name(name) => match self.local_value(name.id.as_str()) {
                // Rebound from itself (`x = torch.round(x.float() * s).long()`): what the name
                // held before, here an input.
                Some(value) if mentions_name(value, name.id.as_str()) => true,
                // A local assigned a simple expression: what it was built from.
                Some(value) => data(value),
                // A parameter or a name bound otherwise: known a tensor, so an input's data.
                _ => self.tensor_kind(expr) == TensorKind::Tensor,
            },
            Expr::Call(call) => {
                if let Expr::Attribute(attribute) = &*call.func
                    && self.qualified(&call.func).is_none()
                {
                    // A method returning a tensor: its receiver is one. Of unknown origin (a
                    // parameter) it is an input's data; otherwise what it was built from.
                    return self.tensor_kind(&attribute.value) == TensorKind::Unknown
                        || data(&attribute.value)
                        || call.arguments.args.iter().any(data);
                }
                if call.arguments.args.iter().any(data)
                    || call.arguments.keywords.iter().any(|k| data(&k.value))
                {
                    return true;
                }
                // Operands of unknown kind alone (`torch.sum(labels)`): most likely tensors.
                // Beside a known host number (`torch.div(h.size(1), w * 2)`) they are numbers.
                !call.arguments.args.is_empty()
                    && call
                        .arguments
                        .args
                        .iter()
                        .all(|a| self.tensor_kind(a) == TensorKind::Unknown)
            }
            Expr::BinOp(binop) => data(&binop.left) || data(&binop.right),
            Expr::UnaryOp(unary) => data(&unary.operand),
            Expr::Subscript(subscript) => data(&subscript.value),
            Expr::Attribute(_) => self.tensor_kind(expr) == TensorKind::Tensor,
            Expr::Named(named) => data(&named.value),
            _ => false,
        }
    }

    /// The expression last assigned to local `name` in the current function, if it is that simple.
    pub fn local_value(&self, name: &str) -> Option<&'a Expr> {
        self.function_frame()?.values.get(name).copied()
    }

    /// Is `expr` a tensor built from host data (so moving it to the device is a host→device copy)?
    pub fn is_host_built(&self, expr: &Expr) -> bool {
        self.is_host_built_depth(expr, 0)
    }

    fn is_host_built_depth(&self, expr: &Expr, depth: u32) -> bool {
        if depth > MAX_EXPR_DEPTH {
            return false;
        }
        match expr {
            Expr::Name(name) => self
                .function_frame()
                .is_some_and(|frame| frame.facts.host_built.contains(name.id.as_str())),
            Expr::Subscript(subscript) => self.is_host_built_depth(&subscript.value, depth + 1),
            Expr::Call(call) => {
                let Some(qualified) = self.qualified(&call.func) else {
                    return false;
                };
                let q = qualified.as_str();
                if TORCH.host_builders.contains(q) {
                    // `as_tensor(t)` of a tensor returns it as it is: nothing is built on the host.
                    return call.arguments.find_keyword("device").is_none()
                        && !call.arguments.args.first().is_some_and(|data| {
                            self.tensor_kind_depth(data, depth + 1) == TensorKind::Tensor
                        });
                }
                if TORCH.host_only_builders.contains(q) {
                    return true;
                }
                if !TORCH.host_preserving_stackers.contains(q) {
                    return false;
                }
                let elements: Option<Vec<&Expr>> = match call.arguments.args.first() {
                    Some(Expr::List(list)) => Some(list.elts.iter().collect()),
                    Some(Expr::Tuple(tuple)) => Some(tuple.elts.iter().collect()),
                    Some(Expr::ListComp(comp)) => Some(vec![&comp.elt]),
                    Some(Expr::Generator(comp)) => Some(vec![&comp.elt]),
                    _ => None,
                };
                elements.is_some_and(|elements| {
                    !elements.is_empty()
                        && elements
                            .iter()
                            .all(|e| self.is_host_built_depth(e, depth + 1))
                })
            }
            _ => false,
        }
    }

    /// Does `expr` hold a `torch._shape_as_tensor` result (through subscripts and methods)?
    /// Arithmetic stops it: `x / torch._shape_as_tensor(x)[0]` is an ordinary tensor under Dynamo
    /// (measured on torch 2.2 and 2.11: `torch.cat` of it traces).
    pub fn contains_shape_as_tensor(&self, expr: &Expr) -> bool {
        // Locals are followed one hop only: `h = h + r` must not recurse into itself.
        self.contains_shape_as_tensor_depth(expr, 0, Follow::Locals)
    }

    fn contains_shape_as_tensor_depth(&self, expr: &Expr, depth: u32, follow: Follow) -> bool {
        if depth > MAX_EXPR_DEPTH {
            return false;
        }
        match expr {
            Expr::Call(call) => {
                self.qualified(&call.func).as_deref() == Some("torch._shape_as_tensor")
                    || matches!(&*call.func, Expr::Attribute(a) if self.contains_shape_as_tensor_depth(&a.value, depth + 1, follow))
            }
            Expr::Subscript(subscript) => {
                self.contains_shape_as_tensor_depth(&subscript.value, depth + 1, follow)
            }
            Expr::Name(name) => {
                self.function_frame()
                    .is_some_and(|frame| frame.facts.shape_lists.contains(name.id.as_str()))
                    || follow == Follow::Locals
                        && self.local_value(name.id.as_str()).is_some_and(|value| {
                            !matches!(value, Expr::Name(_))
                                && self.contains_shape_as_tensor_depth(
                                    value,
                                    depth + 1,
                                    Follow::NotLocals,
                                )
                        })
            }
            _ => false,
        }
    }

    /// Is `expr` itself `torch._shape_as_tensor(x)` or a subscript of it — what Dynamo models as a
    /// `torch.Size`? Follows a local one hop (`sizes = torch._shape_as_tensor(x)`), so
    /// `sizes = sizes[1:]` cannot recurse into itself.
    pub fn is_shape_as_tensor_value(&self, expr: &Expr) -> bool {
        self.is_shape_as_tensor_value_depth(expr, 0, Follow::Locals)
    }

    fn is_shape_as_tensor_value_depth(&self, expr: &Expr, depth: u32, follow: Follow) -> bool {
        if depth > MAX_EXPR_DEPTH {
            return false;
        }
        match expr {
            Expr::Call(call) => {
                self.qualified(&call.func).as_deref() == Some("torch._shape_as_tensor")
            }
            Expr::Subscript(subscript) => {
                self.is_shape_as_tensor_value_depth(&subscript.value, depth + 1, follow)
            }
            Expr::Name(name) if follow == Follow::Locals => {
                self.local_value(name.id.as_str()).is_some_and(|value| {
                    self.is_shape_as_tensor_value_depth(value, depth + 1, Follow::NotLocals)
                })
            }
            _ => false,
        }
    }

    /// Is `expr` a list/tuple/comprehension of `_shape_as_tensor` results (or a local holding one)?
    pub fn is_shape_tensor_sequence(&self, expr: &Expr) -> bool {
        match expr {
            Expr::List(list) => list.elts.iter().any(|e| self.contains_shape_as_tensor(e)),
            Expr::Tuple(tuple) => tuple.elts.iter().any(|e| self.contains_shape_as_tensor(e)),
            Expr::ListComp(comp) => self.contains_shape_as_tensor(&comp.elt),
            Expr::Generator(comp) => self.contains_shape_as_tensor(&comp.elt),
            Expr::Name(name) => self
                .function_frame()
                .is_some_and(|frame| frame.facts.shape_lists.contains(name.id.as_str())),
            _ => false,
        }
    }

    /// Is `expr` a tensor that lives on the host by construction — built without `device=`
    /// (`torch.tensor(...)`, `torch.rand(1)`, `torch.from_numpy`), or math / comparisons /
    /// stacking of such tensors with host values (`torch.rand(1) < p`)? Reading it is no sync.
    pub fn is_on_host(&self, expr: &Expr) -> bool {
        self.is_on_host_depth(expr, 0)
    }

    fn is_on_host_depth(&self, expr: &Expr, depth: u32) -> bool {
        if depth > MAX_EXPR_DEPTH {
            return false;
        }
        // numpy values: Dynamo traces numpy as CPU tensors (a branch on one breaks the graph,
        // measured on torch 2.11), but nothing lives on a device.
        if self.is_host_built_depth(expr, depth) || self.is_numpy_value_depth(expr, depth) {
            return true;
        }
        self.is_on_host_otherwise(expr, depth)
    }

    /// `is_on_host` for a caller that already knows `expr` is neither host-built nor numpy
    /// (an assignment computes both anyway: no need to walk the value twice).
    pub fn is_on_host_given(&self, expr: &Expr, host_built: bool, numpy: bool) -> bool {
        host_built || numpy || self.is_on_host_otherwise(expr, 0)
    }

    /// The rest of `is_on_host_depth`, past the host-built and numpy tests.
    fn is_on_host_otherwise(&self, expr: &Expr, depth: u32) -> bool {
        let host_operands = |operands: &mut dyn Iterator<Item = &Expr>| {
            let mut any_host = false;
            for operand in operands {
                if self.is_on_host_depth(operand, depth + 1) {
                    any_host = true;
                } else if self.tensor_kind_depth(operand, depth + 1) == TensorKind::Tensor {
                    return false;
                }
            }
            any_host
        };
        match expr {
            Expr::Name(name) => self
                .function_frame()
                .is_some_and(|frame| frame.facts.on_host.contains(name.id.as_str())),
            Expr::Subscript(subscript) => self.is_on_host_depth(&subscript.value, depth + 1),
            Expr::UnaryOp(unary) => self.is_on_host_depth(&unary.operand, depth + 1),
            Expr::BinOp(binop) => host_operands(&mut [&*binop.left, &*binop.right].into_iter()),
            Expr::Compare(compare) => host_operands(
                &mut std::iter::once(&*compare.left).chain(compare.comparators.iter()),
            ),
            Expr::Call(call) => {
                if let Expr::Attribute(attribute) = &*call.func
                    && TORCH
                        .host_preserving_methods
                        .contains(attribute.attr.id.as_str())
                    && self.is_on_host_depth(&attribute.value, depth + 1)
                {
                    return true;
                }
                let Some(qualified) = self.qualified(&call.func) else {
                    return false;
                };
                let q = qualified.as_str();
                if TORCH.host_factories.contains(q) {
                    return call.arguments.find_keyword("device").is_none();
                }
                // `torch.tensor(t)` / `as_tensor(t)` of a tensor stays where `t` is.
                if TORCH.host_builders.contains(q) {
                    return call.arguments.find_keyword("device").is_none()
                        && call.arguments.args.first().is_none_or(|data| {
                            self.tensor_kind_depth(data, depth + 1) != TensorKind::Tensor
                                || self.is_on_host_depth(data, depth + 1)
                        });
                }
                // `torch.stack([...host...])`, `torch.stack(torch.meshgrid(*[...host...]))`.
                if TORCH.host_preserving_stackers.contains(q) || q == "torch.meshgrid" {
                    let mut elements: Vec<&Expr> = Vec::new();
                    for argument in &call.arguments.args {
                        match argument {
                            Expr::List(list) => elements.extend(list.elts.iter()),
                            Expr::Tuple(tuple) => elements.extend(tuple.elts.iter()),
                            Expr::ListComp(comp) => elements.push(&comp.elt),
                            Expr::Generator(comp) => elements.push(&comp.elt),
                            Expr::Starred(starred) => match &*starred.value {
                                Expr::ListComp(comp) => elements.push(&comp.elt),
                                Expr::List(list) => elements.extend(list.elts.iter()),
                                other => elements.push(other),
                            },
                            Expr::Call(_) => elements.push(argument),
                            _ => return false,
                        }
                        if q != "torch.meshgrid" {
                            break; // stackers take one sequence; the rest are options
                        }
                    }
                    return !elements.is_empty()
                        && elements.iter().all(|e| self.is_on_host_depth(e, depth + 1));
                }
                false
            }
            _ => false,
        }
    }

    /// Is `expr` a numpy value (`np.*(...)`, a local holding one, numpy arithmetic, methods and
    /// subscripts of one)? It lives on the host.
    pub fn is_numpy_value(&self, expr: &Expr) -> bool {
        self.is_numpy_value_depth(expr, 0)
    }

    fn is_numpy_value_depth(&self, expr: &Expr, depth: u32) -> bool {
        if depth > MAX_EXPR_DEPTH {
            return false;
        }
        match expr {
            Expr::Name(name) => self
                .function_frame()
                .is_some_and(|frame| frame.facts.numpy_values.contains(name.id.as_str())),
            Expr::Call(call) => {
                if let Some(qualified) = self.qualified(&call.func) {
                    return qualified.starts_with("numpy.");
                }
                match &*call.func {
                    // `t.numpy()` makes one; methods of a numpy value stay numpy. `a.copy()`,
                    // `a.astype(t)`: methods torch.Tensor lacks (generated from torch) whose result
                    // has the receiver's kind — a host array, not a tensor. Still a numpy value,
                    // not "no tensor": Dynamo traces numpy as tensors, so `.item()` of one breaks.
                    Expr::Attribute(attribute) => {
                        attribute.attr.id.as_str() == "numpy"
                            || is_same_kind_method(attribute.attr.id.as_str())
                            || self.is_numpy_value_depth(&attribute.value, depth + 1)
                    }
                    _ => false,
                }
            }
            Expr::Subscript(subscript) => self.is_numpy_value_depth(&subscript.value, depth + 1),
            Expr::BinOp(binop) => {
                let (left, right) = (&*binop.left, &*binop.right);
                (self.is_numpy_value_depth(left, depth + 1)
                    && self.tensor_kind_depth(right, depth + 1) != TensorKind::Tensor)
                    || (self.is_numpy_value_depth(right, depth + 1)
                        && self.tensor_kind_depth(left, depth + 1) != TensorKind::Tensor)
            }
            _ => false,
        }
    }
}

/// A method torch.Tensor lacks whose result has its receiver's kind (`copy`, `astype`).
fn is_same_kind_method(method: &str) -> bool {
    TORCH.same_kind_methods.contains(method) && !TORCH.generated.tensor_members.contains(method)
}

/// Does calling the torch function with this qualified name return a tensor? Torch's own
/// annotations and op schemas answer (`rules/data/return_types.toml`: `torch.linalg.norm` is a
/// tensor, `torch.accelerator.is_available()` a bool, `F._Reduction.get_enum(...)` an int). A name
/// they leave out is unknown — not a tensor: torch's helpers return ints, flags and tuples as
/// often as tensors (measured on both 2026-12-01 draws: no real finding rested on that guess) —
/// except the hand-listed host modules and functions of `tensor.toml`.
fn torch_callable_returns_tensor(qualified: &str) -> TensorKind {
    let Some(rest) = qualified.strip_prefix("torch.") else {
        return TensorKind::Unknown;
    };
    // Calling a tensor class builds an instance of it (`torch.Tensor([True])`,
    // `torch.nn.Parameter(w)`): the classes annotations name as tensors.
    if TORCH.tensor_annotations.contains(qualified) {
        return TensorKind::Tensor;
    }
    if let Some(returns) = TORCH.generated.return_types.latest(qualified) {
        return if returns.is_tensor() {
            TensorKind::Tensor
        } else {
            TensorKind::NotTensor
        };
    }
    if TORCH.in_host_module(rest) {
        return TensorKind::NotTensor;
    }
    let last = rest.rsplit('.').next().unwrap_or(rest);
    if TORCH.is_host_function(last) {
        TensorKind::NotTensor
    } else {
        TensorKind::Unknown
    }
}

/// Whether `expr` reads the name `name` anywhere.
fn mentions_name(expr: &Expr, name: &str) -> bool {
    use ruff_python_ast::visitor::{Visitor, walk_expr};
    struct Finder<'n> {
        name: &'n str,
        found: bool,
    }
    impl<'a> Visitor<'a> for Finder<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.found {
                return;
            }
            if let Expr::Name(seen) = expr
                && seen.id.as_str() == self.name
            {
                self.found = true;
                return;
            }
            walk_expr(self, expr);
        }
    }
    let mut finder = Finder { name, found: false };
    finder.visit_expr(expr);
    finder.found
}
