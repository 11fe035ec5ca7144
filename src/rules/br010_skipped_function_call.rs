use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::generated::MarkerTarget;
use crate::semantic::summary::{Hazard, Requirement};
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags calls, in code Dynamo traces, to functions Dynamo refuses to trace: torch functions
    /// its trace rules mark as skipped (`torch.manual_seed`, `torch.jit.isinstance`,
    /// `nn.utils.rnn.pack_padded_sequence`, `torch._dynamo.disable(...)` /
    /// `torch.compiler.disable(...)` called inside the function, `torch.cuda.synchronize`, the
    /// `torch.mtia` / `torch.xpu` device helpers, ...), writes to `os.environ`
    /// (`os.environ[k] = v`, `del os.environ[k]`, `.update`, `.setdefault`, `.clear`), and
    /// standard-library or third-party functions Dynamo skips: `copy.copy`, `threading.Lock()`,
    /// `os.getpid()`, a progress bar's `trange(...)` / `tqdm(...)` (its package is on Dynamo's
    /// third-party skip list). Also a torch function the file takes out of the graph with
    /// `torch._dynamo.disallow_in_graph(torch.fn)` (anywhere in the file: the marker changes
    /// Dynamo's trace rules for the whole process; `rules/data/dynamo_markers.toml`, GB0007 on
    /// torch 2.8 and 2.11). A skipped function wrapped by a grad-mode context manager used as a
    /// decorator and called at once (`torch.no_grad()(torch.manual_seed)(0)`) breaks at that call:
    /// the wrapper runs the function (`rules/data/decorator_context_managers.toml`, measured).
    ///
    /// The list is `rules/data/skipped_functions.toml`, generated from each installed torch by
    /// `scripts/gen_torch_data.py`: every public function that Dynamo's trace rules map to a
    /// skipped function is compiled in a call with `fullgraph=True`, and only those for which
    /// Dynamo raises the skipped-function break are kept (Dynamo intercepts some skipped objects
    /// before its rules are asked, e.g. `torch.utils.checkpoint.checkpoint`). Beside torch's API,
    /// `rules/data/skipped_library_functions.toml` is measured the same way over the public
    /// callables of the standard-library modules `import torch` loads, Dynamo's
    /// `BUILTIN_SKIPLIST` and the importable packages of its `THIRDPARTY_SKIPLIST`; an entry is
    /// kept only when the break names the function itself (so no argument could change it).
    /// `rules/data/skipped_torch_internals.toml` covers torch's functions outside the public
    /// namespaces under every spelling that reaches them: the generator imports every torch
    /// module and groups their public attributes by object identity, so a C builtin re-exported
    /// by Python modules (`torch._dynamo.testing.unsupported` is
    /// `torch._C._dynamo.eval_frame.unsupported`; Dynamo has no rule and no source file for it,
    /// `trace_rules.lookup` skips it: "Dynamo does not know how to trace the builtin") is found
    /// under each name, measured once per object. A call is flagged when the function is skipped on every generated torch at or above the
    /// project's floor.
    ///
    /// ## Why is this bad?
    /// Dynamo ends the graph before the call, runs the function eagerly and starts a new graph
    /// after it (torch 2.11: GB0007 "Attempted to call function marked as skipped"). One such
    /// call in a block that runs per layer splits the model into many graphs (a
    /// `torch.jit.isinstance` in a U-Net block's `forward` gave 9 graphs). Inside a loop body
    /// Dynamo cannot resume and the whole frame runs eagerly. `os.environ` writes break because
    /// they call the C builtin `putenv`.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x, cfg):
    ///     cfg = copy.copy(cfg)   # copy is on Dynamo's BUILTIN_SKIPLIST: GB0007
    ///     ...
    ///
    /// def forward(self, x, lengths):
    ///     packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True)
    ///     ...
    /// ```
    ///
    /// ## Fix
    /// Move the call out of the compiled function (seed, set environment variables and pack
    /// sequences before calling the model), replace it with a traceable equivalent
    /// (`isinstance` for `torch.jit.isinstance`), or keep it eager-only under
    /// `if not torch.compiler.is_compiling():`.
    ///
    /// ## Torch versions
    /// Generated and measured per torch version (2.2, 2.5, 2.8 and 2.11 in the shipped table;
    /// on 2.2 `torch.manual_seed` is itself wrapped in `torch._dynamo.disable`, the same break).
    pub struct SkippedFunctionCall {
        code: "BR010",
        name: "skipped-function-call",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "call to a function Dynamo refuses to trace (marked as skipped: torch.manual_seed, torch.jit.isinstance, os.environ writes, copy.copy, threading.Lock...): graph break",
        hooks: { call: check_call, subscript: check_subscript },
    }
}

/// Skipped functions another rule reports as their own cause (one cause, one finding): the
/// explicit break (BR006) and the device sync (SY002).
const REPORTED_ELSEWHERE: &[&str] = &["torch._dynamo.graph_break", "torch.cuda.synchronize"];

/// The skipped-function break of the table entry `name`, when it holds for this project: torch's
/// own functions, then the standard-library and skip-listed third-party ones (`copy.copy`,
/// `threading.Lock`, a progress bar's `trange`) that BR004 does not report as a side effect.
fn skipped(checker: &Checker<'_>, name: &str) -> Option<String> {
    if REPORTED_ELSEWHERE.contains(&name) {
        return None;
    }
    let floor = checker.semantic().torch_floor();
    let generated = &TORCH.generated;
    let entry = match generated
        .skipped_functions
        .on_every_from(name, floor)
        .or_else(|| {
            // Every internal entry is a dotted `torch.` name: anything else never opens the table.
            name.starts_with("torch.")
                .then(|| generated.skipped_torch_internals.on_every_from(name, floor))
                .flatten()
        }) {
        Some(entry) => entry,
        None if super::br004_python_side_effect_in_region::classify_qualified(name).is_none() => {
            generated
                .skipped_library_functions
                .on_every_from(name, floor)?
        }
        None => return None,
    };
    let gb_type = entry
        .gb_type
        .as_deref()
        .unwrap_or("Attempted to call function marked as skipped");
    Some(super::graph_break_label(gb_type))
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    if !checker.semantic().in_function() {
        return;
    }
    let Some(name) = qualified else {
        check_decorated_call(checker, call);
        return;
    };
    let Some(label) = skipped(checker, name) else {
        check_marked_torch_function(checker, call, name);
        return;
    };
    let message = if let Some(mutator) = name.strip_prefix("os.environ.") {
        format!(
            "`os.environ.{mutator}()` writes the process environment through the C builtin `putenv`, which Dynamo does not trace: graph break under torch.compile ({label})"
        )
    } else {
        format!(
            "`{name}` is marked as skipped by Dynamo's trace rules: calling it in compiled code is a graph break ({label})"
        )
    };
    checker.report(
        &SkippedFunctionCall::META,
        Finding::new(call.range(), message).with_hazard(Hazard::GraphBreak),
    );
}

/// `torch.no_grad()(fn)(x)`: a torch context manager used as a decorator and called at once runs
/// `fn(x)` under the mode (`rules/data/decorator_context_managers.toml`, measured tracing into the
/// wrapped function), so a skipped `fn` breaks at this call as if called directly.
fn check_decorated_call(checker: &mut Checker<'_>, call: &ast::ExprCall) {
    let Expr::Call(decorated) = &*call.func else {
        return;
    };
    let (Expr::Call(context), [wrapped]) = (&*decorated.func, &*decorated.arguments.args) else {
        return;
    };
    if !decorated.arguments.keywords.is_empty() {
        return;
    }
    let semantic = checker.semantic();
    let floor = semantic.torch_floor();
    let Some(context_name) = semantic.qualified(&context.func) else {
        return;
    };
    if TORCH
        .generated
        .decorator_context_managers
        .on_every_from(&context_name, floor)
        .is_none()
    {
        return;
    }
    let Some(name) = semantic.qualified(wrapped) else {
        return;
    };
    let Some(label) = skipped(checker, &name) else {
        return;
    };
    checker.report(
        &SkippedFunctionCall::META,
        Finding::new(
            call.range(),
            format!(
                "`{context_name}(...)({name})` calls `{name}`, which is marked as skipped by Dynamo's trace rules: calling it in compiled code is a graph break ({label})"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}

/// A torch function this file marks with one of Dynamo's markers (`disallow_in_graph(torch.sub)`,
/// wherever in the file: decided when the walk ends). Only in files whose text names such a
/// marker, so a torch call elsewhere costs one cached flag test.
fn check_marked_torch_function(checker: &mut Checker<'_>, call: &ast::ExprCall, name: &str) {
    if !name.starts_with("torch.") || !checker.semantic().may_mark_torch_functions() {
        return;
    }
    let generated = &TORCH.generated;
    let Some(marker) = generated
        .torch_function_marker_names()
        .iter()
        .find(|marker| checker.semantic().source_contains(marker))
    else {
        return;
    };
    // The break the table measured for this marker's spellings on the newest torch.
    let gb_type = [
        "torch._dynamo",
        "torch.compiler",
        "torch._dynamo.decorators",
    ]
    .iter()
    .find_map(|namespace| {
        generated.marker_break(
            &format!("{namespace}.{marker}"),
            MarkerTarget::TorchFunction,
            checker.semantic().torch_floor(),
        )
    })
    .map(|(gb_type, _)| gb_type.to_owned());
    let Some(gb_type) = gb_type else {
        return;
    };
    let label = super::graph_break_label(&gb_type);
    checker.report(
        &SkippedFunctionCall::META,
        Finding::new(
            call.range(),
            format!(
                "`{name}` is taken out of the graph by `{marker}({name})` in this file: Dynamo marks it as skipped, calling it in compiled code is a graph break ({label})"
            ),
        )
        .with_hazard(Hazard::GraphBreak)
        .requiring(Requirement::MarkedTorchFunction {
            name: name.to_owned(),
        }),
    );
}

/// `os.environ[k] = v` and `del os.environ[k]`.
fn check_subscript(checker: &mut Checker<'_>, subscript: &ast::ExprSubscript) {
    let dunder = match subscript.ctx {
        ast::ExprContext::Store => "__setitem__",
        ast::ExprContext::Del => "__delitem__",
        _ => return,
    };
    let semantic = checker.semantic();
    if !semantic.in_function() || !matches!(&*subscript.value, Expr::Attribute(_)) {
        return;
    }
    let Some(target) = semantic.qualified(&subscript.value) else {
        return;
    };
    let Some(label) = skipped(checker, &format!("{target}.{dunder}")) else {
        return;
    };
    let verb = if dunder == "__setitem__" {
        "setting"
    } else {
        "deleting"
    };
    checker.report(
        &SkippedFunctionCall::META,
        Finding::new(
            subscript.range(),
            format!(
                "{verb} an `{target}` entry calls the C builtin `putenv`/`unsetenv`, which Dynamo does not trace: graph break under torch.compile ({label})"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
