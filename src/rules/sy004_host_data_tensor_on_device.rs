use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags `torch.tensor(data, device=...)` / `torch.as_tensor(data, device=...)` /
    /// `torch.asarray(data, device=...)` of Python data (a list or tuple display, a
    /// comprehension, a number, `len(...)`) in code a training step runs — every
    /// `nn.Module.forward` (a loss module's included) and what it calls.
    ///
    /// ## Why is this bad?
    /// torch builds the tensor on the host and copies it to the device with a blocking copy:
    /// the host waits for the device queue to drain — **one round trip per call, per loop
    /// iteration inside a loop** (measured with `torch.cuda.set_sync_debug_mode`: one sync per
    /// call, eager and under `backend="eager"`). `device=` does not make the copy asynchronous.
    /// A loss that builds its target counts this way every step (`torch.as_tensor([len(t) for t
    /// in targets], device=...)`) waits for the forward's kernels each time.
    ///
    /// Inductor folds a constant tensor into the compiled graph (no sync there); loss code that
    /// runs eagerly, and data that changes each step, still pays it.
    ///
    /// Not reported in a memoized function (`@functools.lru_cache`, `@functools.cache`): in eager
    /// mode its body runs once per distinct arguments, not per call.
    ///
    /// ## Example
    /// ```python
    /// def loss_cardinality(self, logits, targets):
    ///     lengths = torch.as_tensor([len(t["labels"]) for t in targets], device=logits.device)
    /// ```
    ///
    /// ## Fix
    /// Build it once per step for everything that needs it (batch the values into one tensor),
    /// keep a Python number as a number when it is only a scale (`loss / num_boxes`), fill on
    /// the device (`torch.full((n,), value, device=...)`), or copy from pinned memory with
    /// `non_blocking=True`.
    ///
    /// ## Torch versions
    /// All versions; the cost is on CUDA (and other async devices), not on CPU.
    pub struct HostDataTensorOnDevice {
        code: "SY004",
        name: "host-data-tensor-on-device",
        family: Sync,
        scope: CompiledRegion,
        torch_versions: "all",
        fix_available: false,
        summary: "torch.tensor/as_tensor of Python data with device=: a blocking host→device copy per call",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let semantic = checker.semantic();
    // A memoized function (`@functools.lru_cache`) copies once per distinct arguments in eager
    // mode, not per call (as SY001).
    if !semantic.in_function() || semantic.in_memoized_function() {
        return;
    }
    let Some(qualified) = qualified else { return };
    if !TORCH.host_builders.contains(qualified) {
        return;
    }
    let Some(device) = call.arguments.find_keyword("device") else {
        return;
    };
    if on_the_host(&device.value) {
        return;
    }
    let Some(data) = call.arguments.args.first() else {
        return;
    };
    // Python data only: a tensor argument is returned (or moved) as it is, and an unknown value
    // may be one.
    if semantic.tensor_kind(data) != TensorKind::NotTensor
        || matches!(data, Expr::StringLiteral(_) | Expr::NoneLiteral(_))
    {
        return;
    }
    let per = if semantic.iterates() {
        "one blocking round trip per loop iteration"
    } else {
        "one blocking round trip per call"
    };
    let function = qualified.rsplit('.').next().unwrap_or(qualified);
    let message = format!(
        "`torch.{function}(...)` of Python data with `device=` builds the tensor on the host and copies it with a blocking host→device copy — {per} (in eager mode; Inductor folds constants); batch the values into one tensor per step, keep a scale as a Python number, or fill on the device (`torch.full`)"
    );
    checker.report(
        &HostDataTensorOnDevice::META,
        Finding::new(call.range(), message),
    );
}

/// `device="cpu"` / `device=torch.device("cpu")`: no copy to an accelerator.
fn on_the_host(device: &Expr) -> bool {
    match device {
        Expr::StringLiteral(s) => s.value.to_str().starts_with("cpu"),
        Expr::Call(call) => call.arguments.args.first().is_some_and(
            |a| matches!(a, Expr::StringLiteral(s) if s.value.to_str().starts_with("cpu")),
        ),
        Expr::NoneLiteral(_) => true,
        _ => false,
    }
}
