use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::generated::ScalarRead;
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
    /// and starts a new graph — also for a tensor built on the host (`torch.rand(1).item()`), a
    /// numpy value, or a `self.<attr>` / `self.<attr>["key"]` slot that every store in the file
    /// fills on the host (`self.state["offset"] = torch.tensor(0)`, then `+= n` with `n` an int),
    /// where the message drops the sync claim.
    ///
    /// Where Dynamo captures the read instead, the message keeps only the sync, or names the
    /// torches on which the read breaks, raises or is captured (`rules/data/scalar_reads.toml`,
    /// generated from torch 2.2, 2.5, 2.8 and 2.11):
    /// - when the tree sets `torch._dynamo.config.capture_scalar_outputs = True` (an assignment or
    ///   `setattr` anywhere, or a `torch._dynamo.config.patch(capture_scalar_outputs=True)` in the
    ///   file): `.item()` and `float(t)` on every torch, `int(t)` from 2.5, `bool(t)` from 2.11;
    /// - where only `fullgraph=True` compiles (or a `torch.cond` branch) reach the read:
    ///   `.item()`, `int()`, `float()` and `bool()` from 2.11; older torches raise.
    ///
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
    // `read`: the read's name in `rules/data/scalar_reads.toml`, for the reads Dynamo may capture.
    // `params`: the read is of a tensor where a traced call passes one for these parameters
    // (`int(n)` with `n` a parameter, or computed from one; linking decides, as for BR001).
    let mut params = None;
    let (what, hazard, receiver, read) = match &*call.func {
        Expr::Attribute(attribute) => {
            let method = attribute.attr.id.as_str();
            let (hazard, read) = match method {
                "item" => (Hazard::GraphBreak, Some("Tensor.item")),
                "tolist" => (Hazard::GraphBreak, Some("Tensor.tolist")),
                // Traced without a graph break (measured on torch 2.2 and 2.11).
                "cpu" | "numpy" => (Hazard::NoBreak, None),
                "synchronize" => {
                    if qualified != Some("torch.cuda.synchronize") {
                        return;
                    }
                    checker.report(
                        &DeviceToHostRead::META,
                        Finding::new(
                            call.range(),
                            "`torch.cuda.synchronize()` blocks the host until the whole device queue drains",
                        ),
                    );
                    return;
                }
                _ => return,
            };
            if !call.arguments.is_empty() || !semantic.receiver_may_be_tensor(&attribute.value, 0) {
                return;
            }
            // `x.cpu().numpy()` is one finding: duplicates at the same start are merged when reporting.
            (format!("`.{method}()`"), hazard, &*attribute.value, read)
        }
        Expr::Name(name) => {
            let read = match name.id.as_str() {
                "int" => "int",
                "float" => "float",
                "bool" => "bool",
                _ => return,
            };
            if !semantic.is_builtin(&call.func, read) {
                return;
            }
            let [argument] = &*call.arguments.args else {
                return;
            };
            match semantic.tensor_kind(argument) {
                TensorKind::Tensor => {}
                TensorKind::NotTensor => return,
                TensorKind::Unknown => {
                    params = semantic.holds_if_inputs_are_tensors(|| {
                        semantic.tensor_kind(argument) == TensorKind::Tensor
                    });
                    if params.is_none() {
                        return;
                    }
                }
            }
            (
                format!("`{read}()` of a tensor"),
                Hazard::GraphBreak,
                argument,
                Some(read),
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
    // Whether a read of a tensor's value breaks depends on the tree's Dynamo config and on the
    // compiles reaching it (`rules/data/scalar_reads.toml`): one wording per setting that matters.
    let settings = match read {
        Some(name) => read_settings(name, semantic.torch_floor()),
        None => vec![ReadSetting::default()],
    };
    // A tensor kept in a `self.<attr>[...]` slot lives where the file's stores put it, known once
    // the file is walked: one wording or the other survives.
    let slot = semantic.tensor_slot(receiver);
    let host_variants: &[bool] = if semantic.is_on_host(receiver) {
        &[true]
    } else if slot.is_some() {
        &[false, true]
    } else {
        &[false]
    };
    for setting in &settings {
        for &on_host in host_variants {
            let requirement = slot
                .clone()
                .filter(|_| host_variants.len() > 1)
                .map(|slot| Requirement::SlotOnHost { slot, on_host });
            let (message, hazard) = match &setting.traced_on {
                None => (message(on_host), hazard),
                Some(_) if setting.breaks_on.is_empty() => {
                    // Captured in the graph on every torch from the floor: only the sync is left.
                    let message = (!on_host).then(|| {
                        format!(
                            "{what} reads a tensor value in Python: a device sync when the tensor is on an accelerator (no graph break: {})",
                            setting.reason()
                        )
                    });
                    (message, Hazard::NoBreak)
                }
                Some(traced) => {
                    let breaking = setting.breaks_on.join(", ");
                    let traced = traced.join(", ");
                    let reason = setting.reason();
                    let tail = if on_host {
                        "the value is built on the host, so there is no device sync"
                    } else {
                        "a device sync when the tensor is on an accelerator"
                    };
                    if setting.fullgraph == Some(true) {
                        // Under fullgraph=True a read Dynamo refuses fails the compile.
                        let message = format!(
                            "{what} reads a tensor value in Python: the compile raises on torch {breaking} and captures the read on torch {traced} ({reason}); {tail}"
                        );
                        (Some(message), Hazard::Crash)
                    } else {
                        let message = format!(
                            "{what} reads a tensor value in Python: graph break under torch.compile on torch {breaking} (captured on torch {traced}: {reason}); {tail}"
                        );
                        (Some(message), Hazard::GraphBreak)
                    }
                }
            };
            let Some(message) = message else { continue };
            let mut finding = Finding::on_tensor_or_inputs(call.range(), message, params.clone())
                .with_hazard(hazard);
            if let Some(requirement) = requirement {
                finding = finding.requiring(requirement);
            }
            if let Some(set) = setting.config {
                finding = finding.requiring_dynamo_config(CAPTURE_SCALARS, set);
            }
            if let Some(only) = setting.fullgraph {
                finding = finding.requiring_fullgraph_only(only);
            }
            checker.report(&DeviceToHostRead::META, finding);
        }
    }
}

/// One wording of a scalar read: the settings it needs (`None`: holds either way) and, when some
/// torch from the floor traces the read under them, the versions that trace it and those that
/// break.
#[derive(Default)]
struct ReadSetting {
    /// The tree sets `capture_scalar_outputs = True`.
    config: Option<bool>,
    /// Only `fullgraph=True` compiles reach the read's function.
    fullgraph: Option<bool>,
    traced_on: Option<Vec<String>>,
    breaks_on: Vec<String>,
}

impl ReadSetting {
    fn reason(&self) -> String {
        let mut reasons = Vec::new();
        if self.config == Some(true) {
            reasons.push("this tree sets torch._dynamo.config.capture_scalar_outputs = True");
        }
        if self.fullgraph == Some(true) {
            reasons.push(
                "every torch.compile reaching it passes fullgraph=True, which captures scalar reads from torch 2.11",
            );
        }
        reasons.join("; ")
    }
}

/// The wordings of a read of `name` from `floor`: a setting is a dimension only when it changes
/// what Dynamo does on some torch from the floor (`fullgraph=True` turning a break into an error
/// changes nothing to say: it is still the break).
fn read_settings(name: &str, floor: Option<crate::config::TorchVersion>) -> Vec<ReadSetting> {
    let Some(outcomes) = TORCH.generated.scalar_reads.each_version_from(name, floor) else {
        return vec![ReadSetting::default()];
    };
    let config_matters = outcomes
        .iter()
        .any(|(_, read)| read.capture_scalar_outputs == "traced");
    let fullgraph_matters = outcomes.iter().any(|(_, read)| read.fullgraph == "traced");
    let choices = |matters: bool| -> Vec<Option<bool>> {
        if matters {
            vec![Some(false), Some(true)]
        } else {
            vec![None]
        }
    };
    let mut settings = Vec::new();
    for config in choices(config_matters) {
        for fullgraph in choices(fullgraph_matters) {
            let (traced, breaks): (Vec<_>, Vec<_>) = outcomes.iter().partition(|(_, read)| {
                read.default == "traced"
                    || (config == Some(true) && read.capture_scalar_outputs == "traced")
                    || (fullgraph == Some(true) && read.fullgraph == "traced")
            });
            let label = |list: Vec<&(crate::config::TorchVersion, &ScalarRead)>| {
                list.iter().map(|(v, _)| v.to_string()).collect::<Vec<_>>()
            };
            settings.push(ReadSetting {
                config,
                fullgraph,
                traced_on: (!traced.is_empty()).then(|| label(traced)),
                breaks_on: label(breaks),
            });
        }
    }
    settings
}

/// The Dynamo config flag that keeps `.item()` in the graph.
const CAPTURE_SCALARS: &str = "capture_scalar_outputs";
