use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::{Hazard, Requirement};
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags reads of device values on the host in code Dynamo traces: `.item()`, `.tolist()`,
    /// `.numpy()`, `.cpu()`, `int()` / `float()` / `bool()` of a tensor, and
    /// `torch.cuda.synchronize()`.
    ///
    /// ## Why is this bad?
    /// For a tensor on an accelerator, each one makes the host wait until the device has computed
    /// the value (a sync that stalls kernel launches). `.item()`, `.tolist()` and
    /// `int()`/`float()`/`bool()` also break the graph: Dynamo ends the graph, runs the read eagerly
    /// and starts a new graph (`.item()` stays in the graph only with
    /// `torch._dynamo.config.capture_scalar_outputs = True`: when the tree sets it — an assignment
    /// or `setattr` anywhere, or a `torch._dynamo.config.patch(capture_scalar_outputs=True)` in the
    /// file — `.item()` and `float(t)` keep only the sync wording, measured tracing on torch 2.2,
    /// 2.5, 2.8 and 2.11) — also for a tensor built on the host
    /// (`torch.rand(1).item()`), a numpy value, or a `self.<attr>` / `self.<attr>["key"]` slot that
    /// every store in the file fills on the host (`self.state["offset"] = torch.tensor(0)`, then
    /// `+= n` with `n` an int), where the message drops the sync claim.
    /// `.cpu()` and `.numpy()` are traced without a graph break (measured on torch 2.2 and 2.11) but
    /// are still a blocking device→host copy; of a tensor built on the host they are not reported.
    /// Host indices produced by one
    /// `.cpu()` and then used to index device tensors turned into ~60 implicit round trips per step
    /// in a real detection loss.
    ///
    /// Shapes (`x.shape`, `x.size(0)`, `x.numel()`) are host metadata and are not flagged, nor is
    /// `int(k)` of a plain Python number.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     n = int(x.sum().item())
    /// ```
    ///
    /// ## Fix
    /// Keep the value on the device (use it as a tensor), move the read out of the step, or
    /// compute it from shapes. For unavoidable reads, do them once per step, after the forward.
    ///
    /// ## Torch versions
    /// All versions with Dynamo; the sync costs on CUDA.
    pub struct DeviceToHostRead {
        code: "SY002",
        name: "device-to-host-read",
        family: Sync,
        scope: CompiledRegion,
        torch_versions: ">=2.0",
        fix_available: false,
        summary: "device value read on the host (.item(), .tolist(), .cpu(), int(t), synchronize): sync, and often a graph break",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let (what, hazard, receiver) = match &*call.func {
        Expr::Attribute(attribute) => {
            let method = attribute.attr.id.as_str();
            let hazard = match method {
                "item" | "tolist" => Hazard::GraphBreak,
                // Traced without a graph break (measured on torch 2.2 and 2.11).
                "cpu" | "numpy" => Hazard::NoBreak,
                "synchronize" => {
                    if qualified != Some("torch.cuda.synchronize") {
                        return;
                    }
                    report(
                        checker,
                        call,
                        "`torch.cuda.synchronize()` blocks the host until the whole device queue drains",
                        Hazard::NoBreak,
                        None,
                        None,
                    );
                    return;
                }
                _ => return,
            };
            if !call.arguments.is_empty() || !semantic.receiver_may_be_tensor(&attribute.value, 0) {
                return;
            }
            // `x.cpu().numpy()` is one finding: duplicates at the same start are merged when reporting.
            (format!("`.{method}()`"), hazard, &*attribute.value)
        }
        Expr::Name(name) if matches!(name.id.as_str(), "int" | "float" | "bool") => {
            if !semantic.is_builtin(&call.func, name.id.as_str()) {
                return;
            }
            let [argument] = &*call.arguments.args else {
                return;
            };
            if semantic.tensor_kind(argument) != TensorKind::Tensor {
                return;
            }
            (
                format!("`{}()` of a tensor", name.id),
                Hazard::GraphBreak,
                argument,
            )
        }
        _ => return,
    };
    let message = |on_host: bool| match (hazard, on_host) {
        // A copy of a tensor that is already on the host: nothing to report.
        (Hazard::NoBreak, true) => None,
        (Hazard::GraphBreak, true) => Some(format!(
            "{what} reads a tensor value in Python: graph break under torch.compile (the value is built on the host, so there is no device sync)"
        )),
        (Hazard::GraphBreak, false) => Some(format!(
            "{what} reads a tensor value in Python: graph break under torch.compile, and a device sync when the tensor is on an accelerator"
        )),
        _ if what == "`.numpy()`" => Some(format!(
            "{what} needs the value on the host: a blocking device→host copy when the tensor is on an accelerator (Dynamo traces it without a graph break on torch 2.2+)"
        )),
        _ => Some(format!(
            "{what} copies device→host when the tensor is on an accelerator: the host blocks until the device queue drains (no graph break)"
        )),
    };
    // `.item()` and `float(t)` stay in the graph when the tree sets
    // `capture_scalar_outputs = True` (measured on torch 2.2, 2.5, 2.8 and 2.11): the break
    // wording holds only when nothing sets it, and then only the sync is left to say.
    let scalar_capture = hazard == Hazard::GraphBreak
        && matches!(what.as_str(), "`.item()`" | "`float()` of a tensor");
    let config = scalar_capture.then_some((CAPTURE_SCALARS, false));
    if semantic.is_on_host(receiver) {
        if let Some(message) = message(true) {
            report(checker, call, &message, hazard, None, config);
        }
        return;
    }
    // A tensor kept in a `self.<attr>[...]` slot lives where the file's stores put it, known once
    // the file is walked: one wording or the other survives.
    let slot = semantic.tensor_slot(receiver);
    for on_host in [false, true] {
        let requirement = slot
            .clone()
            .map(|slot| Requirement::SlotOnHost { slot, on_host });
        if on_host && requirement.is_none() {
            break;
        }
        if let Some(message) = message(on_host) {
            report(checker, call, &message, hazard, requirement.clone(), config);
        }
        if scalar_capture && !on_host {
            let message = format!(
                "{what} reads a tensor value in Python: a device sync when the tensor is on an accelerator (no graph break: this tree sets torch._dynamo.config.capture_scalar_outputs = True)"
            );
            report(
                checker,
                call,
                &message,
                Hazard::NoBreak,
                requirement,
                Some((CAPTURE_SCALARS, true)),
            );
        }
    }
}

/// The Dynamo config flag that keeps `.item()` in the graph.
const CAPTURE_SCALARS: &str = "capture_scalar_outputs";

fn report(
    checker: &mut Checker<'_>,
    call: &ast::ExprCall,
    message: &str,
    hazard: Hazard,
    requirement: Option<Requirement>,
    config: Option<(&'static str, bool)>,
) {
    let mut finding = Finding::new(call.range(), message).with_hazard(hazard);
    if let Some(requirement) = requirement {
        finding = finding.requiring(requirement);
    }
    if let Some((flag, set)) = config {
        finding = finding.requiring_dynamo_config(flag, set);
    }
    checker.report(&DeviceToHostRead::META, finding);
}
