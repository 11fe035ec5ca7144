use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::model::SemanticModel;
use crate::semantic::summary::Hazard;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags, in code Dynamo traces, `sorted(items)` and `items.sort()` without a `key=` where
    /// `items` is a list or tuple written in the function whose elements are all tensors:
    /// `sorted([a.sum(), b.sum()])`, or a local bound only to such a display
    /// (`scores = [x.mean(), y.mean()]` then `scores.sort()`). A list of tensors passed in at a
    /// compiled call site is BR030's.
    ///
    /// ## Why is this bad?
    /// Sorting compares the elements with `<`, and comparing two tensors gives a tensor whose
    /// truth is data: Dynamo sorts only lists of constants and ends the graph at the call
    /// (measured on torch 2.11, `backend="eager"`, `fullgraph=True`: GB0207 "sort with
    /// non-constant keys", for `sorted`, `list.sort`, a tuple, one element, `reverse=True`).
    /// `min()` / `max()` over tensors trace (measured), and a `key=` returning a Python value
    /// (`key=lambda t: t.shape[0]`) traces: neither is flagged.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     losses = [self.a(x).mean(), self.b(x).mean()]
    ///     best = sorted(losses)[0]      # GB0207: graph break
    ///     return best
    /// ```
    ///
    /// ## Fix
    /// Stack the tensors and use torch: `torch.stack(losses).sort().values`, `.min()`,
    /// `torch.topk`; or sort by a Python key (a shape, an index).
    ///
    /// ## Torch versions
    /// Measured breaking on torch 2.2, 2.5, 2.8 and 2.11 (`sorted` of a list, a tuple, a local;
    /// `list.sort()`); before 2.8 a `key=` breaks too, which is not flagged.
    pub struct SortedTensorsInRegion {
        code: "BR038",
        name: "sorted-tensors-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "sorted() / list.sort() without key= over a list of tensors built in traced code: comparing tensors is data, graph break",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, _qualified: Option<&str>) {
    let semantic = checker.semantic();
    if !semantic.in_function() || call.arguments.find_keyword("key").is_some() {
        return;
    }
    let items = match &*call.func {
        Expr::Name(_) if semantic.is_builtin(&call.func, "sorted") => {
            let [items] = call.arguments.args.as_ref() else {
                return;
            };
            items
        }
        Expr::Attribute(attribute)
            if attribute.attr.id.as_str() == "sort" && call.arguments.args.is_empty() =>
        {
            // `items.sort()`: a local list; a tensor's own `.sort()` is torch's.
            if !matches!(&*attribute.value, Expr::Name(_)) {
                return;
            }
            &*attribute.value
        }
        _ => return,
    };
    if !is_tensor_display(semantic, items) {
        return;
    }
    let label = super::graph_break_label("sort with non-constant keys");
    checker.report(
        &SortedTensorsInRegion::META,
        Finding::new(
            call.range(),
            format!(
                "sorting a list of tensors in traced code: comparing tensors is data-dependent, graph break under torch.compile ({label}); stack them and use torch.sort / min / topk, or sort by a Python key"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}

/// A list or tuple display whose elements are all tensors, or a local whose every value here
/// is one.
fn is_tensor_display(semantic: &SemanticModel<'_>, expr: &Expr) -> bool {
    let elements_are_tensors = |elements: &[Expr]| {
        !elements.is_empty()
            && elements.iter().all(|element| {
                !matches!(element, Expr::Starred(_))
                    && semantic.tensor_kind(element) == TensorKind::Tensor
            })
    };
    match expr {
        Expr::List(list) => elements_are_tensors(&list.elts),
        Expr::Tuple(tuple) => elements_are_tensors(&tuple.elts),
        Expr::Name(name) => {
            let values = semantic.local_values(name.id.as_str());
            !values.is_empty()
                && values.iter().all(|value| match value {
                    Expr::List(list) => elements_are_tensors(&list.elts),
                    Expr::Tuple(tuple) => elements_are_tensors(&tuple.elts),
                    _ => false,
                })
        }
        _ => false,
    }
}
