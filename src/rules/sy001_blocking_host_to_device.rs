use crate::diagnostics::Fix;
use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::model::SemanticModel;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::{Ranged, TextRange, TextSize};

declare_rule! {
    /// ## What it does
    /// Flags a tensor built on the host — `torch.tensor(...)` / `torch.as_tensor(...)` without
    /// `device=`, `torch.from_numpy(...)`, `torch._shape_as_tensor(...)`, stacks of those, and
    /// tensors a factory makes on the host because it got no `device=` (`torch.arange(n)`,
    /// `torch.zeros(3)`, `torch.rand(1) < p`) — that is then moved with `.to(device)` or
    /// `.cuda()` without `non_blocking=True`, in code that runs every step (forward and what it
    /// calls, compiled functions). One round trip per call.
    ///
    /// ## Why is this bad?
    /// A blocking host→device copy waits for the copy to finish, and from pageable memory the
    /// CUDA driver first waits for the stream's queued work. In a forward pass that is otherwise
    /// asynchronous, even a 16-byte tensor of sizes drains the whole queue: the host stops
    /// launching kernels until the GPU catches up. On a host-bound model that is a measurable
    /// share of the step (on a GPU-bound one it may change nothing: measure).
    ///
    /// This is an **eager-mode** cost. Compiled with Inductor, a constant host tensor is folded
    /// into the graph: 0 syncs were measured for it on an H200 (issue 7). Code that also runs
    /// eagerly (the first call, a `torch.compiler.disable`d helper, a CPU fallback) still pays it.
    /// Only a tensor built from constants is folded: one that wraps an existing host array
    /// (`torch.from_numpy(a)`, `torch.as_tensor(a)` of a numpy value the function did not build,
    /// such as per-batch targets) is data from outside the graph, a graph input that Inductor
    /// copies on every call — measured on an H200 with torch 2.11, one sync per call under
    /// `backend="inductor"` (0 for `torch.arange(8).to(dev)`); the message says which holds.
    ///
    /// Not reported in a memoized function (`@functools.lru_cache`, `@functools.cache`): in eager
    /// mode its body runs once per distinct arguments, not per call; compiled, Dynamo ignores the
    /// cache wrapper (it warns so) and traces the body, where Inductor folds the constant.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     scale = torch.tensor([w, h]).to(x.device)
    /// ```
    ///
    /// ## Fix
    /// For a factory, create the tensor on the device: `torch.arange(n).to(x.device)` becomes
    /// `torch.arange(n, device=x.device)`, `torch.zeros(3).cuda()` becomes
    /// `torch.zeros(3, device="cuda")` (the fix graphbreak applies when the target is plainly a
    /// device). For host data, pass `non_blocking=True` (the fix graphbreak applies), or avoid host data entirely by
    /// filling on the device (`torch.full(..., device=x.device)`, `torch.arange(..., device=...)`).
    /// `torch.tensor(data, device=...)` and `x.new_tensor(data)` are *not* fixes: measured with
    /// `torch.cuda.set_sync_debug_mode`, each still performs one synchronizing copy.
    /// ```python
    ///     scale = torch.tensor([w, h]).to(x.device, non_blocking=True)
    /// ```
    ///
    /// ## Torch versions
    /// All versions; the cost is on CUDA (and other async devices), not on CPU.
    pub struct BlockingHostToDevice {
        code: "SY001",
        name: "blocking-host-to-device",
        family: Sync,
        scope: CompiledRegion,
        torch_versions: "all",
        fix_available: true,
        summary: "host-built tensor moved to the device without non_blocking=True: drains the CUDA queue",
        hooks: { call: check_call },
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, _qualified: Option<&str>) {
    let semantic = checker.semantic();
    // A memoized function (`@functools.lru_cache`) copies once per distinct arguments in eager
    // mode, not per call; compiled, Dynamo traces its body and Inductor folds the constant.
    if !semantic.in_function() || semantic.in_memoized_function() {
        return;
    }
    let Expr::Attribute(attribute) = &*call.func else {
        return;
    };
    let method = attribute.attr.id.as_str();
    if method != "to" && method != "cuda" {
        return;
    }
    // Built from host data, or made on the host by a factory without `device=`
    // (`torch.arange(n)`, `torch.zeros(3)`, math on those): either way the move is a copy.
    let receiver = &*attribute.value;
    let host_built = semantic.is_host_built(receiver);
    if !host_built && (!semantic.is_on_host(receiver) || semantic.is_numpy_value(receiver)) {
        return;
    }
    // `.to(device, dtype, non_blocking)` / `.cuda(device, non_blocking)` / `**kwargs` may already
    // pass non_blocking where we cannot see it: only the one-positional forms are judged.
    let arguments = &call.arguments;
    if arguments.args.len() > 1
        || arguments.keywords.iter().any(|k| k.arg.is_none())
        || arguments.args.iter().any(|a| matches!(a, Expr::Starred(_)))
    {
        return;
    }
    if method == "to" && !moves_to_device(semantic, arguments) {
        return;
    }
    if targets_cpu(semantic, arguments) {
        return;
    }
    let non_blocking = call.arguments.find_keyword("non_blocking");
    if let Some(keyword) = non_blocking
        && !matches!(&keyword.value, Expr::BooleanLiteral(b) if !b.value)
    {
        // non_blocking=True, or a variable we can't see: don't guess.
        return;
    }
    let factory = factory_call(checker, receiver);
    let (fix, message) = match factory.and_then(|f| device_fix(checker, call, method, f)) {
        Some((fix, name)) => (
            fix,
            format!(
                "tensor made on the host by `torch.{name}(...)` (no `device=`) and copied to the device with a blocking `.{method}()`: in eager mode the host waits for the device queue to drain, one round trip per call (compiled with Inductor the constant is folded into the graph: no sync); create it on the device: `torch.{name}(..., device=...)`"
            ),
        ),
        None if wraps_host_array(semantic, receiver, 0) => (
            non_blocking_fix(checker, call),
            format!(
                "host array wrapped as a tensor and copied to the device with a blocking `.{method}()`: the host waits for the device queue to drain, one round trip per call — compiled too: the array is not a constant (a graph input, or computed from one), so Inductor copies it on every call (measured on an H200, torch 2.11: one sync per call); pass `non_blocking=True` or keep the data on the device"
            ),
        ),
        None => (
            non_blocking_fix(checker, call),
            format!(
                "host-built tensor copied to the device with a blocking `.{method}()`: in eager mode the host waits for the device queue to drain, one round trip per call (compiled with Inductor the constant is folded into the graph: no sync); pass `non_blocking=True` or fill it on the device (`torch.full`/`torch.arange(..., device=...)`)"
            ),
        ),
    };
    checker.report(
        &BlockingHostToDevice::META,
        Finding::new(call.range(), message).with_fix(fix),
    );
}

/// Does `receiver` wrap an existing host array — `torch.from_numpy(a)`, `torch.as_tensor(a)` of a
/// numpy value — whose data the function does not build from constants? Compiled, such an array
/// is a graph input: Inductor cannot fold it, and the copy stays (one sync per call, measured on
/// an H200 with torch 2.11). An array the function builds itself (`np.ones(3)`) is traced as
/// tensor ops and folded like any constant.
fn wraps_host_array(semantic: &SemanticModel<'_>, receiver: &Expr, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    let built_here = |data: &Expr| matches!(data, Expr::Call(c) if semantic.qualified(&c.func).is_some_and(|q| q.starts_with("numpy.")));
    match receiver {
        Expr::Call(call) => {
            if let Some(qualified) = semantic.qualified(&call.func) {
                let Some(data) = call.arguments.args.first() else {
                    return false;
                };
                return match qualified.as_str() {
                    "torch.from_numpy" => !built_here(data),
                    q if TORCH.host_builders.contains(q) => {
                        semantic.is_numpy_value(data) && !built_here(data)
                    }
                    _ => false,
                };
            }
            // `torch.from_numpy(a).float()`: the same data.
            matches!(&*call.func, Expr::Attribute(attribute)
                if TORCH.host_preserving_methods.contains(attribute.attr.id.as_str())
                    && wraps_host_array(semantic, &attribute.value, depth + 1))
        }
        Expr::Subscript(subscript) => wraps_host_array(semantic, &subscript.value, depth + 1),
        Expr::Name(name) => semantic
            .local_value(name.id.as_str())
            .is_some_and(|value| wraps_host_array(semantic, value, depth + 1)),
        _ => false,
    }
}

/// The receiver when it is a direct call of a host factory without `device=` (`torch.arange(n)`).
fn factory_call<'e>(checker: &Checker<'_>, receiver: &'e Expr) -> Option<&'e ast::ExprCall> {
    let Expr::Call(factory) = receiver else {
        return None;
    };
    let qualified = checker.semantic().qualified(&factory.func)?;
    (TORCH.host_factories.contains(qualified.as_str())
        && factory.arguments.find_keyword("device").is_none()
        && !factory
            .arguments
            .args
            .iter()
            .any(|a| matches!(a, Expr::Starred(_)))
        && !factory.arguments.keywords.iter().any(|k| k.arg.is_none()))
    .then_some(factory)
}

/// `torch.arange(n).to(x.device)` → `torch.arange(n, device=x.device)`, when the target is
/// plainly a device (a `.device` attribute, a string, `torch.device(...)`, a name saying
/// `device`); `.cuda()` → `device="cuda"`. `None` when the target may be a tensor (`.to(t)`
/// also converts the dtype) or the move passes other options.
fn device_fix(
    checker: &Checker<'_>,
    call: &ast::ExprCall,
    method: &str,
    factory: &ast::ExprCall,
) -> Option<(Fix, String)> {
    let semantic = checker.semantic();
    let name = semantic
        .qualified(&factory.func)?
        .rsplit('.')
        .next()?
        .to_owned();
    let arguments = &call.arguments;
    let device_text = if method == "cuda" {
        if !arguments.is_empty() {
            return None;
        }
        "\"cuda\"".to_owned()
    } else {
        let target = match (arguments.args.first(), arguments.find_keyword("device")) {
            (Some(first), None) if arguments.keywords.is_empty() => first,
            (None, Some(keyword)) if arguments.keywords.len() == 1 => &keyword.value,
            _ => return None,
        };
        let plainly_device = match target {
            Expr::Attribute(a) => a.attr.id.as_str() == "device",
            Expr::StringLiteral(_) => true,
            Expr::Name(n) => n.id.as_str().contains("device"),
            Expr::Call(c) => semantic.qualified(&c.func).as_deref() == Some("torch.device"),
            _ => false,
        };
        if !plainly_device {
            return None;
        }
        semantic.text(target.range()).to_owned()
    };
    let last_argument_end = factory
        .arguments
        .args
        .iter()
        .map(Ranged::end)
        .chain(factory.arguments.keywords.iter().map(Ranged::end))
        .max();
    let insert = match last_argument_end {
        Some(end) => checker.edit(TextRange::empty(end), format!(", device={device_text}")),
        None => checker.edit(
            TextRange::empty(factory.arguments.range().start() + TextSize::from(1)),
            format!("device={device_text}"),
        ),
    };
    let remove_move = checker.edit(TextRange::new(factory.end(), call.end()), "");
    Some((
        Fix {
            message: format!("Create it on the device: `torch.{name}(..., device=...)`"),
            edits: vec![insert, remove_move],
        },
        name,
    ))
}

/// `.to(dtype)` converts in place on the same device; anything else (a device, a tensor, a
/// `device=` keyword) is a move.
fn moves_to_device(semantic: &SemanticModel<'_>, arguments: &ast::Arguments) -> bool {
    if arguments.find_keyword("device").is_some() {
        return true;
    }
    let Some(first) = arguments.args.first() else {
        return false;
    };
    match first {
        Expr::StringLiteral(_) => true,
        Expr::Attribute(attribute) if attribute.attr.id.as_str() == "dtype" => false,
        Expr::Name(name) if name.id.as_str().contains("dtype") => false,
        other => match semantic.qualified(other) {
            Some(qualified) => !TORCH.dtypes.contains(&qualified),
            None => true,
        },
    }
}

/// `.to("cpu")`, `.to(device="cpu")`, `.to(torch.device("cpu"))`, `.cpu()`-like moves stay on the host.
fn targets_cpu(semantic: &SemanticModel<'_>, arguments: &ast::Arguments) -> bool {
    let target = arguments
        .find_keyword("device")
        .map(|k| &k.value)
        .or_else(|| arguments.args.first());
    let is_cpu_literal =
        |expr: &Expr| matches!(expr, Expr::StringLiteral(s) if s.value.to_str().starts_with("cpu"));
    match target {
        Some(Expr::Call(call)) => {
            semantic.qualified(&call.func).as_deref() == Some("torch.device")
                && call.arguments.args.first().is_some_and(is_cpu_literal)
        }
        Some(other) => is_cpu_literal(other),
        None => false,
    }
}

fn non_blocking_fix(checker: &Checker<'_>, call: &ast::ExprCall) -> Fix {
    if let Some(keyword) = call.arguments.find_keyword("non_blocking") {
        return Fix {
            message: "Set `non_blocking=True`".to_owned(),
            edits: vec![checker.edit(keyword.value.range(), "True")],
        };
    }
    // Insert right after the last argument, never at the `)`: a comment may sit in between
    // (`x.device  # input's device` on its own line), and a trailing comma stays where it is.
    let last_argument_end = call
        .arguments
        .args
        .iter()
        .map(Ranged::end)
        .chain(call.arguments.keywords.iter().map(Ranged::end))
        .max();
    let (at, content) = match last_argument_end {
        Some(end) => (end, ", non_blocking=True"),
        None => (
            call.arguments.range().start() + TextSize::from(1),
            "non_blocking=True",
        ),
    };
    Fix {
        message: "Pass `non_blocking=True`".to_owned(),
        edits: vec![checker.edit(TextRange::empty(at), content)],
    }
}
