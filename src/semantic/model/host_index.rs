//! Host-side index values: where an index used on a tensor comes from the host (a `.cpu()` copy,
//! `.numpy()` / `.tolist()`, numpy and scipy results, tensors built without `device=`, Python list
//! displays). Indexing a device tensor with one copies the index to the device first, a blocking
//! host→device copy (one round trip per indexing).
//!
//! Inside one function the answer is computed from the expression (following locals to their
//! last value, and loop / comprehension targets to what they iterate). Across functions it is
//! symbolic: an index may depend on a parameter (`IndexDep::Param`) or on what a project call
//! returns (`IndexDep::Returns`, a module stored on `self` included, whose class the model may not
//! see: `self.matcher = matcher`). Linking (`semantic/host_index.rs`) solves those once the whole
//! project is known.

use super::{MAX_EXPR_DEPTH, SemanticModel};
use crate::semantic::Sym;
use crate::semantic::data::TORCH;
use crate::semantic::summary::IndexDep;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};

/// Tensor factories `*_like(x)` / methods whose result stays on `x`'s device.
const DEVICE_PRESERVING_FUNCTIONS: &[&str] = &[
    "torch.full_like",
    "torch.zeros_like",
    "torch.ones_like",
    "torch.empty_like",
    "torch.flatten",
    "torch.unique",
    "torch.nonzero",
    "torch.where",
    "torch.argsort",
    "torch.sort",
];

/// Builtins whose result holds the same elements (`tuple(pos)`, `list(idx)`).
const ELEMENT_PRESERVING_BUILTINS: &[&str] = &["tuple", "list", "sorted", "reversed"];

impl<'a> SemanticModel<'a> {
    /// Where a value used as an index comes from, when that may be the host (empty: a device
    /// value, a scalar, or unknown).
    pub fn host_index_deps(&self, expr: &Expr) -> Vec<IndexDep> {
        let mut deps = Vec::new();
        self.index_deps_into(expr, 0, &mut deps);
        deps.dedup();
        deps
    }

    /// What the innermost loop or comprehension target named `id` was bound to, if one is.
    fn index_loop_bound(&self, id: &str) -> Option<Vec<IndexDep>> {
        self.index_loops
            .borrow()
            .iter()
            .rev()
            .find(|(n, _)| n == id)
            .map(|(_, bound)| bound.clone())
    }

    fn index_deps_into(&self, expr: &Expr, depth: u32, deps: &mut Vec<IndexDep>) {
        let Some(_nested) = Nested::enter(self) else {
            return;
        };
        if depth > MAX_EXPR_DEPTH / 4 {
            return;
        }
        let push = |deps: &mut Vec<IndexDep>, dep: IndexDep| {
            if !deps.contains(&dep) {
                deps.push(dep);
            }
        };
        match expr {
            Expr::Name(name) => {
                let id = name.id.as_str();
                if let Some(bound) = self.index_loop_bound(id) {
                    for dep in bound {
                        push(deps, dep);
                    }
                    return;
                }
                if let Some(value) = self.local_value(id) {
                    // One hop at a time: `idx = idx[keep]` must not recurse into itself.
                    if !matches!(value, Expr::Name(n) if n.id.as_str() == id) {
                        self.index_deps_into(value, depth + 4, deps);
                    }
                    return;
                }
                if self
                    .function_frame()
                    .is_some_and(|frame| frame.is_unrebound_param(id))
                {
                    push(deps, IndexDep::Param(id.to_owned()));
                } else if self.is_numpy_value(expr) || self.is_on_host(expr) {
                    push(deps, IndexDep::Host);
                }
            }
            // A list of numbers as an index is advanced indexing: torch builds a tensor from it
            // on the host. A list that holds tensors is read as a tuple of indices (each where
            // it is).
            Expr::List(list) => {
                if !list.elts.is_empty() && list.elts.iter().all(|e| self.is_scalar_like(e)) {
                    push(deps, IndexDep::Host);
                } else {
                    for element in &list.elts {
                        self.index_deps_into(element, depth + 1, deps);
                    }
                }
            }
            Expr::ListComp(comp) => {
                if self.is_scalar_like(&comp.elt) {
                    push(deps, IndexDep::Host);
                } else {
                    self.comprehension_element_deps(&comp.elt, &comp.generators, depth, deps);
                }
            }
            Expr::Tuple(tuple) => {
                for element in &tuple.elts {
                    self.index_deps_into(element, depth + 1, deps);
                }
            }
            Expr::Subscript(subscript) => {
                // A slice of a host value is on the host; an element is what the container holds.
                if matches!(&*subscript.slice, Expr::Slice(_)) {
                    self.index_deps_into(&subscript.value, depth + 1, deps);
                } else if matches!(&*subscript.value, Expr::Subscript(_))
                    && !matches!(&*subscript.slice, Expr::NumberLiteral(_))
                {
                    // `idx[0][k]`: an element (at a computed position) of an element — a scalar
                    // of an index array, not an array (`indices[i][1]`, a pair's second array, is
                    // kept by the literal position).
                } else {
                    for dep in self.element_deps(&subscript.value, 0) {
                        push(deps, dep);
                    }
                }
            }
            Expr::BinOp(binop) => {
                self.index_deps_into(&binop.left, depth + 1, deps);
                self.index_deps_into(&binop.right, depth + 1, deps);
            }
            Expr::Starred(starred) => self.index_deps_into(&starred.value, depth + 1, deps),
            Expr::Call(call) => self.call_index_deps(call, depth, deps),
            _ => {}
        }
    }

    fn call_index_deps(&self, call: &ast::ExprCall, depth: u32, deps: &mut Vec<IndexDep>) {
        let first = call.arguments.args.first();
        if let Expr::Name(name) = &*call.func
            && ELEMENT_PRESERVING_BUILTINS.contains(&name.id.as_str())
            && self.lookup(name.id.as_str()).is_none()
        {
            if let Some(first) = first {
                self.index_deps_into(first, depth + 1, deps);
            }
            return;
        }
        if let Some(qualified) = self.qualified(&call.func) {
            let q = qualified.as_str();
            // numpy and scipy compute on the host (`linear_sum_assignment` returns numpy arrays).
            if q.starts_with("numpy.") || q.starts_with("scipy.") {
                deps.push(IndexDep::Host);
                return;
            }
            let no_device = call.arguments.find_keyword("device").is_none();
            if TORCH.host_builders.contains(q) {
                // `torch.as_tensor(i)`: on the host when `i` is; of a tensor, where it is.
                if no_device && let Some(first) = first {
                    if self.tensor_kind(first) != TensorKind::Tensor
                        && !matches!(first, Expr::Name(_) | Expr::Subscript(_) | Expr::Call(_))
                    {
                        deps.push(IndexDep::Host);
                    } else {
                        self.index_deps_into(first, depth + 1, deps);
                    }
                }
                return;
            }
            if TORCH.host_only_builders.contains(q)
                || (TORCH.host_factories.contains(q) && no_device)
            {
                deps.push(IndexDep::Host);
                return;
            }
            if TORCH.host_preserving_stackers.contains(q) {
                match first {
                    Some(Expr::List(list)) => {
                        for element in &list.elts {
                            self.index_deps_into(element, depth + 1, deps);
                        }
                    }
                    Some(Expr::Tuple(tuple)) => {
                        for element in &tuple.elts {
                            self.index_deps_into(element, depth + 1, deps);
                        }
                    }
                    Some(Expr::ListComp(comp)) => {
                        self.comprehension_element_deps(&comp.elt, &comp.generators, depth, deps)
                    }
                    Some(Expr::Generator(comp)) => {
                        self.comprehension_element_deps(&comp.elt, &comp.generators, depth, deps)
                    }
                    Some(other) => self.index_deps_into(other, depth + 1, deps),
                    None => {}
                }
                return;
            }
            if DEVICE_PRESERVING_FUNCTIONS.contains(&q) {
                if no_device && let Some(first) = first {
                    self.index_deps_into(first, depth + 1, deps);
                }
                return;
            }
            if q.starts_with("torch.") {
                return;
            }
        }
        if let Expr::Attribute(attribute) = &*call.func {
            let method = attribute.attr.id.as_str();
            match method {
                // A copy to the host, a numpy view, a Python list.
                "cpu" | "numpy" | "tolist" if call.arguments.is_empty() => {
                    deps.push(IndexDep::Host);
                    return;
                }
                "to" | "cuda" => return, // moved (maybe to the device): not followed
                _ => {}
            }
            if TORCH.host_preserving_methods.contains(method)
                || matches!(method, "t" | "T" | "split" | "chunk" | "unbind" | "nonzero")
            {
                self.index_deps_into(&attribute.value, depth + 1, deps);
                return;
            }
        }
        // A project function or method, or a module stored on `self`: what it returns (solved
        // when linking, where `self.matcher(...)` with no visible class is also resolved).
        match self.resolve(&call.func) {
            Some(Sym::Dotted(dotted)) if !self.is_project_dotted(&dotted) => {}
            Some(
                sym @ (Sym::Local(_)
                | Sym::SelfAttr { .. }
                | Sym::Dotted(_)
                | Sym::SuperAttr { .. }),
            ) => {
                let dep = match &sym {
                    Sym::SelfAttr { class, attr }
                        if self.injected_attrs.contains(&(class.clone(), attr.clone())) =>
                    {
                        IndexDep::Injected(sym)
                    }
                    _ => IndexDep::Returns(sym),
                };
                if !deps.contains(&dep) {
                    deps.push(dep);
                }
            }
            _ => {}
        }
    }

    /// The deps of `elt` for each iteration of `generators` (the targets bound while reading it).
    fn comprehension_element_deps(
        &self,
        elt: &Expr,
        generators: &[ast::Comprehension],
        depth: u32,
        deps: &mut Vec<IndexDep>,
    ) {
        // The comprehension's own targets are bound only while the checker walks inside it;
        // read from outside, they are bound here for the time of the read.
        let mark = self.index_loops.borrow().len();
        for generator in generators {
            let bound = self.loop_target_deps(&generator.target, &generator.iter);
            self.index_loops.borrow_mut().extend(bound);
        }
        let mut inner = Vec::new();
        self.index_deps_into(elt, depth + 1, &mut inner);
        self.index_loops.borrow_mut().truncate(mark);
        for dep in inner {
            if !deps.contains(&dep) {
                deps.push(dep);
            }
        }
    }

    /// Names a `for` target binds and where their values come from, given what it iterates:
    /// `zip(a, b)` pairs each target element with one argument, `enumerate(a)` binds a counter
    /// and `a`'s elements, anything else binds every name to the iterable's elements. Elements
    /// of a host array (`.tolist()`, `.cpu()`, numpy) are scalars, not index arrays.
    pub(crate) fn loop_target_deps(
        &self,
        target: &Expr,
        iter: &Expr,
    ) -> Vec<(String, Vec<IndexDep>)> {
        let mut out = Vec::new();
        self.bind_target(target, iter, 0, &mut out);
        out
    }

    fn bind_target(
        &self,
        target: &Expr,
        iter: &Expr,
        depth: u32,
        out: &mut Vec<(String, Vec<IndexDep>)>,
    ) {
        if depth > 8 {
            return;
        }
        if let Some(pairs) = self.zip_or_enumerate(target, iter) {
            // The counter of `enumerate` binds no index array.
            for (element, source) in pairs {
                if let Some(source) = source {
                    self.bind_target(element, source, depth + 1, out);
                }
            }
            return;
        }
        let deps = self.element_deps(iter, 0);
        bind_all(target, &deps, out);
    }

    /// Where the elements of an iterable (or of a container being subscripted) come from.
    /// Elements of a host array (`.tolist()`, `.cpu()`, numpy, `torch.arange(n)`) are scalars —
    /// indexing with one is basic indexing, no copy — while elements of a list display, a
    /// comprehension, a parameter or a project call's result may be index arrays.
    fn element_deps(&self, iter: &Expr, depth: u32) -> Vec<IndexDep> {
        let mut deps = Vec::new();
        let Some(_nested) = Nested::enter(self) else {
            return deps;
        };
        if depth > 8 {
            return deps;
        }
        match iter {
            Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                for element in elts {
                    self.index_deps_into(element, 1, &mut deps);
                }
            }
            Expr::ListComp(comp) => {
                self.comprehension_element_deps(&comp.elt, &comp.generators, 1, &mut deps)
            }
            Expr::Generator(comp) => {
                self.comprehension_element_deps(&comp.elt, &comp.generators, 1, &mut deps)
            }
            Expr::Name(name) => {
                let id = name.id.as_str();
                if let Some(bound) = self.index_loop_bound(id) {
                    return bound;
                }
                match self.local_value(id) {
                    Some(value) if !matches!(value, Expr::Name(_)) => {
                        return self.element_deps(value, depth + 1);
                    }
                    Some(_) => {}
                    None => self.index_deps_into(iter, 1, &mut deps),
                }
            }
            Expr::Subscript(subscript) => {
                if matches!(&*subscript.slice, Expr::Slice(_)) {
                    return self.element_deps(&subscript.value, depth + 1);
                }
                // An element of an element: the elements of a container's index arrays are
                // scalars, but a nested container may hold arrays (unknown: keep the deps
                // only when they are symbolic).
                let inner = self.element_deps(&subscript.value, depth + 1);
                if matches!(&*subscript.slice, Expr::NumberLiteral(_)) {
                    // `pairs[0]`: a position in a pair of index arrays.
                    return inner;
                }
                return inner.into_iter().filter(|d| *d != IndexDep::Host).collect();
            }
            Expr::Call(_) if is_host_array_call(self, iter) => {}
            other => self.index_deps_into(other, 1, &mut deps),
        }
        deps
    }

    /// A Python number as far as the model can tell (`0`, `-1`, `len(v)`, `x.shape[0]`, math on
    /// those): a list of them is an index torch builds on the host. A dict, a string, a nested
    /// container or an unknown value is not.
    fn is_scalar_like(&self, expr: &Expr) -> bool {
        match expr {
            Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) => true,
            Expr::UnaryOp(unary) => self.is_scalar_like(&unary.operand),
            Expr::BinOp(binop) => {
                self.is_scalar_like(&binop.left) && self.is_scalar_like(&binop.right)
            }
            Expr::Call(call) => matches!(&*call.func, Expr::Name(n)
                if matches!(n.id.as_str(), "len" | "int" | "round" | "abs")
                    && self.lookup(n.id.as_str()).is_none()),
            Expr::Subscript(_) | Expr::Attribute(_) => {
                self.tensor_kind(expr) == TensorKind::NotTensor
            }
            _ => false,
        }
    }
}

/// `.cpu()` / `.numpy()` / `.tolist()` / numpy calls: arrays whose elements are scalars.
fn is_host_array_call(model: &SemanticModel<'_>, expr: &Expr) -> bool {
    let Expr::Call(call) = expr else { return false };
    if let Expr::Attribute(attribute) = &*call.func
        && matches!(attribute.attr.id.as_str(), "cpu" | "numpy" | "tolist")
    {
        return true;
    }
    model
        .qualified(&call.func)
        .is_some_and(|q| q.starts_with("numpy.") || q.starts_with("torch."))
}

fn bind_all(target: &Expr, deps: &[IndexDep], out: &mut Vec<(String, Vec<IndexDep>)>) {
    match target {
        Expr::Name(name) => out.push((name.id.as_str().to_owned(), deps.to_vec())),
        Expr::Tuple(tuple) => tuple.elts.iter().for_each(|e| bind_all(e, deps, out)),
        Expr::List(list) => list.elts.iter().for_each(|e| bind_all(e, deps, out)),
        Expr::Starred(starred) => bind_all(&starred.value, deps, out),
        _ => {}
    }
}

impl SemanticModel<'_> {
    /// Binds the targets of a `for` loop or of a comprehension's generators while the checker
    /// walks its body; returns the mark to give back to [`SemanticModel::unbind_loop_targets`].
    pub(crate) fn bind_loop_targets(&self, pairs: &[(&Expr, &Expr)]) -> usize {
        let mark = self.index_loops.borrow().len();
        if !self.in_function() {
            return mark;
        }
        for (target, iter) in pairs {
            let bound = self.loop_target_deps(target, iter);
            self.index_loops.borrow_mut().extend(bound);
        }
        mark
    }

    pub(crate) fn enter_comprehension(&self) {
        self.iteration_depth.set(self.iteration_depth.get() + 1);
    }

    pub(crate) fn leave_comprehension(&self) {
        self.iteration_depth
            .set(self.iteration_depth.get().saturating_sub(1));
    }

    pub(crate) fn unbind_loop_targets(&self, mark: usize) {
        self.index_loops.borrow_mut().truncate(mark);
    }
}

/// Bounds the whole evaluation, across the mutual recursion of locals, loop targets and
/// comprehensions (`names = [n for n in names]` refers to itself through a comprehension).
const MAX_NESTED: u32 = 32;
/// Steps one top-level question may take (tuples and operators branch: without a budget a
/// hostile expression could take exponential time).
const MAX_STEPS: u32 = 2048;

struct Nested<'m, 'a> {
    model: &'m SemanticModel<'a>,
}

impl<'m, 'a> Nested<'m, 'a> {
    fn enter(model: &'m SemanticModel<'a>) -> Option<Nested<'m, 'a>> {
        let depth = model.index_nesting.get();
        if depth == 0 {
            model.index_budget.set(MAX_STEPS);
        }
        let budget = model.index_budget.get();
        if depth >= MAX_NESTED || budget == 0 {
            return None;
        }
        model.index_budget.set(budget - 1);
        model.index_nesting.set(depth + 1);
        Some(Nested { model })
    }
}

impl Drop for Nested<'_, '_> {
    fn drop(&mut self) {
        let depth = self.model.index_nesting.get();
        self.model.index_nesting.set(depth.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use crate::scan::test_support::scan_rows;

    /// Rows (in `source`, after the header) of the SY003 findings of a module whose `forward`s are
    /// the step code.
    fn host_index_rows(source: &str) -> Vec<u32> {
        let header = "import numpy as np\nimport torch\nfrom scipy.optimize import linear_sum_assignment\nfrom torch import nn\n\n\nclass M(nn.Module):\n";
        let mut rows: Vec<u32> = scan_rows(header, source, true)
            .into_iter()
            .filter(|(_, d)| d.code == "SY003")
            .map(|(row, _)| row)
            .collect();
        rows.sort_unstable();
        rows
    }

    #[test]
    fn scipy_results_unpacked_are_host_indices() {
        let source = r#"
    def forward(self, x, cost):
        rows, cols = linear_sum_assignment(cost)
        picked = x[rows]
        return picked + x[torch.as_tensor(cols)]
"#;
        assert_eq!(host_index_rows(source), [4, 5]);
    }

    #[test]
    fn elements_of_host_arrays_are_scalars_and_lists_of_dicts_are_no_index() {
        let source = r#"
    def forward(self, x, idx):
        order = idx.tolist()
        for i in order:
            x = x + x[i]
        rows = np.arange(3)
        for k in range(3):
            x = x + x[rows[k]]
        specs = [{"a": 1}, {"a": 2}]
        self.head(x, specs)
        return x[order]

    def head(self, x, specs):
        for s in specs:
            x = x + x[s["a"]]
        return x
"#;
        // Only the list itself indexes as an array (row 11).
        assert_eq!(host_index_rows(source), [11]);
    }

    #[test]
    fn pairs_and_nested_elements() {
        let source = r#"
    def forward(self, x, cost):
        pairs = [linear_sum_assignment(c) for c in cost]
        first = x[pairs[0][1]]
        src = torch.cat([s for (s, _) in pairs])
        counts = src.unique(return_counts=True)[1]
        return first + x[src] + x[src[counts[0]]]
"#;
        // `pairs[0][1]` is the second array of the first pair; `src[counts[0]]` is a scalar of
        // the index array.
        assert_eq!(host_index_rows(source), [4, 7]);
    }

    #[test]
    fn indices_reach_callees_through_parameters_returns_and_injected_modules() {
        let source = r#"
    def forward(self, outputs):
        idx = self.permutation([(np.arange(2), np.arange(2))])
        return outputs[idx]

    def permutation(self, indices):
        batch = torch.cat([torch.full_like(torch.as_tensor(s), i) for i, (s, _) in enumerate(indices)])
        return batch, torch.cat([torch.as_tensor(s) for (s, _) in indices])


class Matcher(nn.Module):
    def forward(self, outputs):
        return [(torch.as_tensor(i), torch.as_tensor(j)) for i, j in [linear_sum_assignment(outputs.cpu())]]


class Loss(nn.Module):
    def __init__(self, matcher):
        super().__init__()
        self.matcher = matcher

    def forward(self, outputs, targets):
        indices = self.matcher(outputs)
        return self.labels(targets, indices)

    def labels(self, targets, indices):
        return torch.cat([t["labels"][j] for t, (_, j) in zip(targets, indices)])


class DeviceLoss(nn.Module):
    def forward(self, outputs, targets):
        keep = torch.arange(3, device=outputs.device)
        return outputs[keep] + targets[0]["labels"][outputs.argmax(-1)]
"#;
        assert_eq!(host_index_rows(source), [4, 26]);
    }
}
