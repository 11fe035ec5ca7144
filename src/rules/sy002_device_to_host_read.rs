use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
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
    /// Each one makes the host wait until the device has computed the value (a sync that stalls
    /// kernel launches). `.item()`, `.tolist()`, `.numpy()` and `int()`/`float()`/`bool()` also
    /// break the graph: Dynamo ends the graph, runs the read eagerly and starts a new graph
    /// (`.item()` stays in the graph only with `torch._dynamo.config.capture_scalar_outputs = True`).
    /// `.cpu()` is traced but still a device→host copy that blocks. Host indices produced by one
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
    let (what, hazard) = match &*call.func {
        Expr::Attribute(attribute) => {
            let method = attribute.attr.id.as_str();
            let hazard = match method {
                "item" | "tolist" | "numpy" => Hazard::GraphBreak,
                "cpu" => Hazard::NoBreak,
                "synchronize" => {
                    if qualified != Some("torch.cuda.synchronize") {
                        return;
                    }
                    report(
                        checker,
                        call,
                        "`torch.cuda.synchronize()` blocks the host until the whole device queue drains",
                        Hazard::NoBreak,
                    );
                    return;
                }
                _ => return,
            };
            if !call.arguments.is_empty() || !semantic.receiver_may_be_tensor(&attribute.value, 0) {
                return;
            }
            // `x.cpu().numpy()` is one finding: duplicates at the same start are merged when reporting.
            (format!("`.{method}()`"), hazard)
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
            (format!("`{}()` of a tensor", name.id), Hazard::GraphBreak)
        }
        _ => return,
    };
    let message = if hazard == Hazard::GraphBreak {
        format!(
            "{what} reads a device value on the host: graph break under torch.compile and a device sync"
        )
    } else {
        format!("{what} copies device→host: the host blocks until the device queue drains")
    };
    report(checker, call, &message, hazard);
}

fn report(checker: &mut Checker<'_>, call: &ast::ExprCall, message: &str, hazard: Hazard) {
    checker.report(
        &DeviceToHostRead::META,
        Finding::new(call.range(), message).with_hazard(hazard),
    );
}
