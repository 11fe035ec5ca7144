use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::model::SemanticModel;
use crate::semantic::summary::IndexDep;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags a tensor that may live on the device indexed — read (`t[idx]`) or assigned
    /// (`t[idx] = v`) — with host-side indices: a `.cpu()` copy, `.numpy()` / `.tolist()`, a
    /// numpy or scipy result (`scipy.optimize.linear_sum_assignment`), a tensor built without
    /// `device=` (`torch.as_tensor(i)`, `torch.arange(n)`, `torch.full_like` of one), a Python
    /// list display, or a tuple of those (`w[tuple(pos)]`). The indices are followed through
    /// locals, loop and comprehension targets (`for t, (_, j) in zip(targets, indices)`), and
    /// across the project: a parameter that some call passes host indices for, what a project
    /// function returns, and what a module stored on `self` by the constructor returns when a
    /// project module's `forward` returns host indices (a matcher injected into a loss).
    ///
    /// Scope: code a training step runs — every `nn.Module.forward` (a loss module's included)
    /// and what it calls, compiled or not (with configured roots, the compiled closure).
    ///
    /// ## Why is this bad?
    /// Advanced indexing needs the index on the tensor's device: torch copies the host index to
    /// the device first, a blocking host→device copy that waits for the device's queue to
    /// drain — **one round trip per indexing, per loop iteration inside a loop**. A detection
    /// loss that matches predictions to targets on the host (Hungarian matching) and then
    /// indexes the device predictions and targets per image and per decoder layer pays dozens
    /// of them per step (measured with `torch.cuda.set_sync_debug_mode`: 48 of a DETR training
    /// step's 107 syncs); the GPU idles while the host waits.
    ///
    /// Not reported for a **read** through a host torch bool mask (`x[mask]`, `x[..., mask]` with
    /// `mask = torch.ones(n, dtype=torch.bool)` or `mask.cpu()`): torch takes the mask's nonzero on
    /// the host and copies the positions without holding the host — measured on an H200 with
    /// torch 2.11 (`scripts/device/index_syncs.py`, docs/measurements/2026-12-02-h200-index-syncs.md):
    /// 0 syncs and no host wait, where a host integer index, a list display or a numpy index each
    /// held the host for the queued work. A **write** through a host bool mask (`x[mask] = v`) does
    /// block (one sync), and so does a numpy bool mask, read or written (two): those are reported.
    /// A value that receives a method torch.Tensor lacks (`a.copy()`, `a.astype(...)`; the
    /// tensor's members are generated from torch) is a host array, not a device tensor.
    ///
    /// This is an **eager-mode** cost (and that of Dynamo with a non-Inductor backend, such as
    /// `backend="eager"`). Compiled with Inductor, host-built index tensors in the graph
    /// (`torch.arange(n)`, `torch.tensor([...])`, a list display) are built on the device
    /// instead (Inductor's constructor-moving pass): measured on an H200 with torch 2.11 and
    /// `torch.cuda.set_sync_debug_mode`, 0 syncs under `backend="inductor"` for `x[torch.arange(k)]`,
    /// `x[[0, 2, 3]]`, `y[torch.arange(2)] = 0` and a per-iteration `x[torch.tensor([t])]`
    /// (1, 1, 2 and 3 per call under `backend="eager"`). Indices that come from host *data*
    /// (`.cpu()`, `.tolist()`, numpy) are graph inputs or graph breaks, which Inductor cannot
    /// move; code that runs eagerly (a loss outside the compiled module) pays every copy.
    ///
    /// ## Example
    /// ```python
    /// def loss_labels(self, logits, targets, indices):
    ///     labels = torch.cat([t["labels"][j] for t, (_, j) in zip(targets, indices)])
    /// ```
    ///
    /// ## Fix
    /// Keep the indices on the device: move them once, batched and asynchronously
    /// (`torch.cat(host_indices).to(device, non_blocking=True)` from pinned memory), build them
    /// on the device (`torch.arange(n, device=...)`), or index on the host before the data moves.
    /// One batched indexing per step instead of one per image pays one round trip instead of
    /// many.
    ///
    /// ## Torch versions
    /// All versions; the cost is on CUDA (and other async devices), not on CPU.
    pub struct HostIndexOnDeviceTensor {
        code: "SY003",
        name: "host-index-on-device-tensor",
        family: Sync,
        scope: CompiledRegion,
        torch_versions: "all",
        fix_available: false,
        summary: "device tensor indexed with host-side indices: one blocking host→device copy per indexing",
        hooks: { subscript: check_subscript },
    }
}

fn check_subscript(checker: &mut Checker<'_>, subscript: &ast::ExprSubscript) {
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let index = &*subscript.slice;
    if matches!(
        index,
        Expr::Slice(_)
            | Expr::NumberLiteral(_)
            | Expr::StringLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::EllipsisLiteral(_)
            | Expr::BooleanLiteral(_)
    ) {
        return;
    }
    // The indexed value: a tensor that may be on the device (not a host tensor, numpy value,
    // or a Python container the model knows).
    let base = &*subscript.value;
    if semantic.tensor_kind(base) == TensorKind::NotTensor
        || semantic.is_on_host(base)
        || semantic.is_numpy_value(base)
        || !semantic.receiver_may_be_tensor(base, 0)
    {
        return;
    }
    // Reading through a host *torch* bool mask does not block: torch takes its nonzero on the host
    // and copies the positions asynchronously (measured on an H200, torch 2.11: no sync, host not
    // held). Writing through one does, and so does a numpy bool mask either way (see the doc).
    let elements: Vec<&Expr> = match index {
        Expr::Tuple(tuple) => tuple.elts.iter().collect(),
        other => vec![other],
    };
    let mut deps = Vec::new();
    for element in elements {
        if subscript.ctx == ast::ExprContext::Load
            && semantic.is_bool_mask_element(element, base)
            && !is_numpy_mask(semantic, element, 0)
        {
            continue;
        }
        for dep in semantic.host_index_deps(element) {
            if !deps.contains(&dep) {
                deps.push(dep);
            }
        }
    }
    if deps.is_empty() {
        return;
    }
    let index_text = short(semantic.text(index.range()));
    // The most concrete source first (which symbolic one held is known only once linked).
    let origin = if deps.contains(&IndexDep::Host) {
        format!("`{index_text}` is on the host")
    } else if deps
        .iter()
        .any(|d| matches!(d, IndexDep::Returns(_) | IndexDep::Injected(_)))
    {
        format!("`{index_text}` comes from a call that returns host indices")
    } else if let Some(IndexDep::Param(name)) =
        deps.iter().find(|d| matches!(d, IndexDep::Param(_)))
    {
        format!("`{index_text}` comes from `{name}`, which a caller fills with host indices")
    } else {
        format!("`{index_text}` depends on host indices")
    };
    let action = match subscript.ctx {
        ast::ExprContext::Store => "assigned through",
        _ => "indexed with",
    };
    let per = if semantic.iterates() {
        "one blocking round trip per loop iteration"
    } else {
        "one blocking round trip per call"
    };
    let message = format!(
        "device tensor {action} host-side indices ({origin}): torch copies the index to the device first, a blocking host→device copy — {per} (in eager mode and under non-Inductor backends; Inductor moves host-built index constructors and constants to the device: no copy); keep the indices on the device (build them with `device=`, or move them once per step, batched, with `non_blocking=True`)"
    );
    let mut finding = Finding::new(subscript.range(), message);
    if !deps.contains(&IndexDep::Host) {
        finding = finding.requiring_host_index(deps);
    }
    checker.report(&HostIndexOnDeviceTensor::META, finding);
}

/// A numpy bool mask: a numpy value, a comparison of one, or a local holding either. torch
/// copies such a mask to the device whole and takes its nonzero there (two syncs per read,
/// measured), unlike a torch host mask.
fn is_numpy_mask(semantic: &SemanticModel<'_>, mask: &Expr, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    match mask {
        Expr::Compare(compare) => std::iter::once(&*compare.left)
            .chain(compare.comparators.iter())
            .any(|operand| semantic.is_numpy_value(operand)),
        Expr::UnaryOp(unary) => is_numpy_mask(semantic, &unary.operand, depth + 1),
        Expr::BinOp(binop) => {
            is_numpy_mask(semantic, &binop.left, depth + 1)
                || is_numpy_mask(semantic, &binop.right, depth + 1)
        }
        Expr::Name(name) => {
            semantic.is_numpy_value(mask)
                || semantic
                    .local_value(name.id.as_str())
                    .is_some_and(|value| is_numpy_mask(semantic, value, depth + 1))
        }
        other => semantic.is_numpy_value(other),
    }
}

/// An expression quoted in a message, cut at 40 characters.
fn short(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= 40 {
        one_line
    } else {
        format!("{}…", one_line.chars().take(39).collect::<String>())
    }
}
