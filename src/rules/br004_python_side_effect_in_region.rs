use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::summary::Hazard;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags Python calls with side effects, or into libraries Dynamo does not trace, in code
    /// Dynamo traces: `print(...)`, `logging.info(...)` and logger methods (`logger.warning(...)`,
    /// `logger.warning_once(...)` on a receiver named `logger`/`log`/`LOGGER`/`self.logger`),
    /// `warnings.warn(...)`, `warnings.simplefilter(...)` / `filterwarnings(...)` /
    /// `resetwarnings()`, `time.time()` / `perf_counter()` / `monotonic()` / `sleep()`,
    /// `random.random()` / `choice()` / `shuffle()` / `sample()`, `copy.deepcopy(...)`, and any
    /// `scipy` function (e.g. `scipy.optimize.linear_sum_assignment` in a Hungarian matcher).
    ///
    /// ## Why is this bad?
    /// Dynamo cannot put these in a graph, so it ends the graph before the call, runs the call
    /// eagerly and starts a new graph after it. Measured on torch 2.11 (backend="eager"):
    /// `print` GB0059 "Failed to trace builtin operator"; `logging.info` GB0156 "Unsupported method
    /// call"; logger methods GB0291 "logging.Logger method not supported for non-export cases";
    /// a logger imported from a module outside the project and the standard library is no
    /// `logging.Logger`: Dynamo traces into its code, which breaks where it reads the caller's
    /// frame (`sys._getframe`: GB0007) or writes output, and the message says so instead of GB0291;
    /// `warnings.warn`, `time.*`, `random.*`, `scipy.*` GB0007 "Attempted to call function marked
    /// as skipped"; `warnings.simplefilter` / `filterwarnings` / `resetwarnings` change the filter
    /// list and call the C builtin `_warnings._filters_mutated`, which Dynamo skips (GB0007 on
    /// 2.11, GB0156 on 2.8, a break on 2.5 and 2.2 too; inside `with warnings.catch_warnings():`
    /// the break cannot resume and the whole function runs eagerly: 0 graphs on 2.5 to 2.11);
    /// `copy.deepcopy` GB0179. Each costs a graph and the guards of a resumed frame
    /// on every call. On torch 2.2 all of them broke too except `random.random()`, which 2.2 traced.
    ///
    /// Also a tensor hook's handle stored in a global (`global handle` then `handle =
    /// x.register_hook(fn)`): Dynamo cannot keep the handle outside the graph and gives up on the
    /// whole frame (torch 2.8 and 2.11: GB0100 "Storing Tensor hook handle in globals"; 2.5:
    /// "Storing handles in globals - NYI"; 0 graphs). A handle kept in a local is traced.
    ///
    /// Not flagged, because Dynamo traces them (measured): `random.randint`, `random.uniform`,
    /// `id(tensor)` on 2.11, numpy functions on `.numpy()` arrays (traced through `torch._numpy`).
    ///
    /// Not flagged, because the code users compile does not take the branch: a misuse branch, an
    /// `if` / `elif` / `else` body whose own warning says the caller passed a deprecated or ignored
    /// input (`if txt_ids.ndim == 3: logger.warning("Passing 3d `txt_ids` is deprecated ...")`,
    /// `if len(unused_kwargs) > 0: logger.warning(f"{unused_kwargs} are not expected ... and will
    /// be ignored.")`) or that calls a project deprecation helper (`deprecate("scale", ...)`). The
    /// words and helper names are data (`rules/data/warnings.toml`); the whole branch is treated
    /// like a `raise` branch, for every rule. A warning about a normal situation stays flagged
    /// (`"loss_type=... is unrecognized. Using the default loss"` on every call of a model whose
    /// config names no loss), and so does a `FutureWarning` whose text says nothing of misuse.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     logger.info("batch %s", x.shape)
    ///     if self.training and random.random() < self.drop:
    ///         return x
    /// ```
    ///
    /// ## Fix
    /// Move logging, timing and debugging prints out of the compiled function, or put them under
    /// `if not torch.compiler.is_compiling():`. Draw random numbers with torch (`torch.rand(())`).
    /// Run matchers and other scipy code outside the compiled region, or mark their helper with
    /// `@torch.compiler.disable` deliberately.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2 and 2.11 (`random.random()`: 2.11 only).
    pub struct PythonSideEffectInRegion {
        code: "BR004",
        name: "python-side-effect-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "print / logging / warnings / time / random / deepcopy / scipy call in traced code: graph break",
        hooks: { call: check_call, statement: check_statement },
    }
}

/// `global handle` then `handle = x.register_hook(fn)` in traced code: Dynamo cannot keep a
/// tensor hook's handle in a global (torch 2.11: GB0100 "Storing Tensor hook handle in globals";
/// 2.8 the same, 2.5 "Storing handles in globals - NYI"), and it gives up on the whole frame
/// (0 graphs). A local handle is fine.
fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::Assign(assign) = stmt else {
        return;
    };
    let Expr::Call(call) = &*assign.value else {
        return;
    };
    let Expr::Attribute(method) = &*call.func else {
        return;
    };
    if method.attr.id.as_str() != "register_hook" {
        return;
    }
    let semantic = checker.semantic();
    if !semantic.in_function() || semantic.tensor_kind(&method.value) == TensorKind::NotTensor {
        return;
    }
    let Some(name) = assign.targets.iter().find_map(|target| match target {
        Expr::Name(name) if semantic.is_declared_global(name.id.as_str()) => {
            Some(name.id.to_string())
        }
        _ => None,
    }) else {
        return;
    };
    let label = super::graph_break_label("Storing Tensor hook handle in globals");
    checker.report(
        &PythonSideEffectInRegion::META,
        Finding::new(
            stmt.range(),
            format!(
                "the handle of a tensor hook is stored in the global `{name}`: Dynamo cannot keep a hook handle outside the graph and gives up on the whole frame, which runs eagerly (torch >= 2.5: {label}); keep the handle in a local or register the hook outside the compiled code"
            ),
        )
        .with_hazard(Hazard::FrameSkip),
    );
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let message = match qualified.and_then(classify_qualified) {
        Some(message) => message,
        None => match &*call.func {
            Expr::Name(name)
                if name.id.as_str() == "print" && semantic.is_builtin(&call.func, "print") =>
            {
                "`print()` in traced code: graph break under torch.compile (GB0059 Failed to trace builtin operator)".to_owned()
            }
            // Also when `logger` is imported from a project module (then it has a qualified name).
            _ => match semantic.logger_method(call) {
                Some(method) => match foreign_logger(semantic, call) {
                    Some(receiver) => format!(
                        "logger method `.{method}()` of `{receiver}`, imported from outside the project and the standard library, so not a `logging.Logger` the scan can see: Dynamo traces into its code, which breaks the graph where it reads the caller's frame (`sys._getframe`: GB0007 function marked as skipped) or writes output, as logging libraries do; a logger in plain Python traces"
                    ),
                    None => format!(
                        "logger method `.{method}()` in traced code: graph break under torch.compile (GB0291 logging.Logger method not supported)"
                    ),
                },
                None => return,
            },
        },
    };
    checker.report(
        &PythonSideEffectInRegion::META,
        Finding::new(call.range(), message).with_hazard(Hazard::GraphBreak),
    );
}

/// The receiver of a logger call (`somelog.logger` for `logger.warning(...)` after `from somelog
/// import logger`) when it is imported from a module neither of the project nor `logging`: Dynamo
/// does not refuse it as a `logging.Logger` (GB0291) but traces its code (measured on torch 2.11:
/// a method reading `sys._getframe` breaks with GB0007, a plain-Python one traces without a break).
fn foreign_logger(
    semantic: &crate::semantic::model::SemanticModel<'_>,
    call: &ast::ExprCall,
) -> Option<String> {
    let Expr::Attribute(attribute) = &*call.func else {
        return None;
    };
    let receiver = semantic.qualified(&attribute.value)?;
    let root = receiver.split('.').next().unwrap_or(&receiver);
    (root != "logging" && !semantic.is_project_dotted(&receiver)).then_some(receiver)
}

/// The side-effect finding BR004 makes for a call of the qualified function `q`, if any (BR010
/// leaves those calls to it: one cause, one finding).
pub(super) fn classify_qualified(q: &str) -> Option<String> {
    let (module, function) = q.rsplit_once('.')?;
    let skipped = |what: &str| {
        format!(
            "{what} in traced code: graph break under torch.compile (GB0007 Dynamo skips the function)"
        )
    };
    match module {
        "logging" if TORCH.logger_methods.contains(function) => Some(format!(
            "`logging.{function}()` in traced code: graph break under torch.compile (GB0156 Unsupported method call)"
        )),
        "warnings" if function == "warn" => Some(skipped("`warnings.warn()`")),
        // They mutate the filter list and call the C builtin `_warnings._filters_mutated`
        // (measured: torch 2.11 GB0007 on that builtin, 2.8 GB0156 on the list mutation, 2.5 and
        // 2.2 "unsupported builtin" / `ListVariable.remove`). Under `with warnings.catch_warnings():`
        // the checker makes it a frame skip, as under any standard-library context manager
        // (`model/context_managers.rs`).
        "warnings" if matches!(function, "simplefilter" | "filterwarnings" | "resetwarnings") => {
            Some(format!(
                "`warnings.{function}()` in traced code: graph break under torch.compile (GB0007 Dynamo skips `_warnings._filters_mutated`, which it calls)"
            ))
        }
        "time"
            if matches!(
                function,
                "time" | "perf_counter" | "monotonic" | "sleep" | "process_time" | "time_ns" | "perf_counter_ns" | "monotonic_ns"
            ) =>
        {
            Some(skipped(&format!("`time.{function}()`")))
        }
        "random" if matches!(function, "random" | "choice" | "shuffle" | "sample") => Some(format!(
            "`random.{function}()` in traced code: graph break under torch.compile (GB0007 Dynamo skips the function; random.random() is traced on torch 2.2 but breaks on 2.11); draw with torch.rand instead"
        )),
        "copy" if function == "deepcopy" => Some(
            "`copy.deepcopy()` in traced code: graph break under torch.compile (GB0179 copy.deepcopy())".to_owned(),
        ),
        _ if q.starts_with("scipy.") => Some(skipped(&format!("`{q}()` (scipy, not traceable)"))),
        _ => None,
    }
}
