use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::Sym;
use crate::semantic::link::Project;
use crate::semantic::model::Marked;
use crate::semantic::own_scope::any_in_own_scope;
use crate::semantic::summary::{Candidate, FileId, FuncIdx, FunctionInfo, Hazard};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Reports deliberate graph breaks in code Dynamo traces: explicit calls to
    /// `torch._dynamo.graph_break()` (and, from torch 2.11, `torch._dynamo.step_unsupported()`,
    /// GB4636; `comptime.graph_break()` of `torch._dynamo.comptime`, GB0030 "ComptimeContext graph
    /// break"; and a function decorated with `@comptime` whose body calls `graph_break()` on its
    /// first parameter, `@comptime def _(ctx): ctx.graph_break()`: Dynamo runs it while tracing
    /// and reports the same GB0030 at the decorator's line, on torch 2.2 to 2.11, while a
    /// `@comptime` body without that call, `ctx.print_graph()`, traces whole), and calls into
    /// functions decorated with
    /// `@torch.compiler.disable` / `@torch._dynamo.disable` (anywhere in the project), also with
    /// `recursive=False` (Dynamo still skips the function's own frame, so the call breaks; its
    /// callees are traced: GB0099 on torch 2.8 and 2.11, "call torch._dynamo.disable() wrapped
    /// function" on 2.2 and 2.5). Also the targets of Dynamo's other markers
    /// (`rules/data/dynamo_markers.toml`, generated per torch version by marking a function, an
    /// `nn.Module` class and a module instance with each public callable of `torch._dynamo`,
    /// `torch.compiler` and `torch._dynamo.decorators` and compiling a call of it with
    /// `fullgraph=True`): a function decorated with `@torch._dynamo.decorators.skip` or marked
    /// after its `def` (`f = torch.compiler.disable(f)`), a call of a module whose class is marked
    /// as a whole (`@torch.compiler.disable` on the class, or `torch.compiler.disable(Block)`,
    /// which patches the class in place: its `forward` is skipped, GB0099 from torch 2.8 on), and
    /// a module instance wrapped at assignment (`self.proj = torch.compiler.disable(Block())`
    /// then `self.proj(x)`: GB0148 "Unsupported function call (delayed)", a break from torch 2.5
    /// on), and a module whose forward hook is a disabled function
    /// (`self.proj.register_forward_hook(hook)` with `@torch.compiler.disable def hook`, or
    /// `register_forward_hook(torch.compiler.disable(hook))`, then `self.proj(x)`: GB0098; also
    /// when a module class registers such a hook on itself, `self.register_forward_hook(hook)`
    /// in its `__init__`, and a module of this file holds an instance of it, `self.layer =
    /// Layer()` then `self.layer(x)`: the same GB0098 at that call, measured on torch 2.11).
    /// `torch._dynamo.allow_in_graph` is no break. Without a declared torch floor a marker
    /// counts when it breaks on the newest generated torch (the message says from which
    /// version); with one, on every generated version at or above it. With
    /// `--type-flow`, also a disabled function that reaches the call as a value — passed in as an
    /// argument (`apply(helper, x)` → `return fn(x)`; GB0098 at the call, measured on torch 2.2 to
    /// 2.11 in tests/python/test_peer_suite_proofs.py).
    ///
    /// ## Why is this bad?
    /// It is not a bug — someone chose it — but it still costs what every graph break costs: the
    /// graph ends before the call, the call runs eagerly, a new graph starts after it, and the
    /// resumed frame has its own guards. Measured on torch 2.11 (backend="eager"): GB0025
    /// "Call to `torch._dynamo.graph_break()`" (also when it sits in a callee), GB0098 "Skip
    /// calling `torch.compiler.disable()`d function" for a disabled function, GB0099 "Skip
    /// inlining `torch.compiler.disable()`d function" for a disabled method (`self.helper(x)`).
    /// The codes in the messages come from Dynamo's graph-break registry
    /// (`rules/data/graph_breaks.toml`). This rule makes the price visible, so a disabled helper
    /// called once per layer shows up as the many graphs it causes.
    ///
    /// ## Example
    /// ```python
    /// @torch.compiler.disable
    /// def assign_targets(boxes, gt): ...
    ///
    /// def forward(self, x, gt):
    ///     targets = assign_targets(self.head(x), gt)
    /// ```
    ///
    /// ## Fix
    /// Keep the break if the callee really cannot be traced, but move it to the edge of the
    /// compiled function (one break instead of one per layer), or make the callee traceable and
    /// drop the decorator. Silence deliberately kept sites with `# noqa: BR006`.
    ///
    /// A break in the body of a higher-order op (a `torch.cond` branch, a
    /// `torch.ops.higher_order.wrap` body) does not split the graph: the whole op fails to
    /// capture (UncapturedHigherOrderOpError under `fullgraph=True`), and Dynamo still names the
    /// body's line. A break inside a dunder method that Python syntax calls (`obj.attr = v` →
    /// `__setattr__`, `obj[k]` → `__getitem__`/`__setitem__`, `a == b` / `a != b` →
    /// `__eq__`/`__ne__`) on an instance of a project class is reported at its own line, as
    /// Dynamo reports it.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2 and 2.11. The dunder calls: `__setattr__` and `__getitem__` are
    /// traced on 2.5, 2.8 and 2.11 (2.2 already refuses to build an instance of a class with its
    /// own `__setattr__`, a break at the store); `!=` traces a user `__eq__` from 2.8 on (2.5
    /// compiles the comparison without entering it).
    pub struct DeliberateGraphBreak {
        code: "BR006",
        name: "deliberate-graph-break",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "deliberate graph break in traced code (graph_break(), call into a compiler.disable'd function): still costs a graph",
        hooks: { call: check_call, statement: check_comptime_function, project: check_project },
    }
}

/// The explicit break calls and the graph-break type Dynamo reports for each (torch 2.11's
/// registry names them; `step_unsupported` exists from torch 2.11 on).
const EXPLICIT_BREAKS: &[(&str, &str)] = &[
    (
        "torch._dynamo.graph_break",
        "Call to `torch._dynamo.graph_break()`",
    ),
    (
        "torch._dynamo.step_unsupported",
        "Call to `torch._dynamo.step_unsupported()`",
    ),
    // `comptime.graph_break()` (torch._dynamo.comptime, on every supported torch) asks the
    // tracer for a break from inside the frame: registered as "ComptimeContext graph break".
    (
        "torch._dynamo.comptime.comptime.graph_break",
        "ComptimeContext graph break",
    ),
];

/// Dynamo's compile-time hook: a function decorated with it runs while Dynamo traces, given the
/// tracer's context as its first argument.
const COMPTIME: &str = "torch._dynamo.comptime.comptime";

/// `@comptime def _(ctx): ctx.graph_break()` in traced code: Dynamo calls the function at the
/// decorator while tracing, and the context's `graph_break()` splits the graph there (GB0030
/// "ComptimeContext graph break" on torch 2.8 and 2.11, "ComptimeContext.graph_break" on 2.2
/// and 2.5, reported at the decorator's line). A body that never calls `graph_break()` on its
/// first parameter (`ctx.print_graph()`) traces whole.
fn check_comptime_function(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::FunctionDef(def) = stmt else {
        return;
    };
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let Some(decorator) = def
        .decorator_list
        .iter()
        .find(|d| semantic.qualified(&d.expression).as_deref() == Some(COMPTIME))
    else {
        return;
    };
    let Some(context) = def.parameters.iter_non_variadic_params().next() else {
        return;
    };
    let context_name = context.parameter.name.as_str();
    let breaks = any_in_own_scope(&def.body, |expr| {
        matches!(expr, Expr::Call(call)
            if matches!(&*call.func, Expr::Attribute(attribute)
                if attribute.attr.id.as_str() == "graph_break"
                    && matches!(&*attribute.value, Expr::Name(name) if name.id.as_str() == context_name)))
    });
    if !breaks {
        return;
    }
    let label = super::graph_break_label("ComptimeContext graph break");
    checker.report(
        &DeliberateGraphBreak::META,
        Finding::new(
            decorator.range(),
            format!(
                "`@comptime` function `{}` calls `{}.graph_break()`: Dynamo runs it while tracing, a deliberate graph break at the decorator, the traced code is split into two graphs here ({label})",
                def.name.id,
                context.parameter.name.id
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    if let Some(marked) = checker.semantic().marked_instance_call(call) {
        if !checker.semantic().in_function() {
            return;
        }
        let label = super::graph_break_label(&marked.gb_type);
        let since = since_text(marked);
        let marker = marked.marker.clone();
        let marked = marked.clone();
        let attr = match &*call.func {
            ast::Expr::Attribute(attribute) => attribute.attr.id.to_string(),
            _ => return,
        };
        let message = match &marked.hook {
            Some(hook) => format!(
                "call of `self.{attr}`, whose forward hook `{hook}` is marked by `{marker}`: Dynamo runs the hook eagerly, a deliberate graph break{since} ({label})"
            ),
            None => format!(
                "call of `self.{attr}`, a module instance wrapped in `{marker}(...)`: Dynamo does not trace into it, a deliberate graph break{since} ({label})"
            ),
        };
        checker.report(
            &DeliberateGraphBreak::META,
            Finding::new(call.range(), message).with_hazard(Hazard::GraphBreak),
        );
        return;
    }
    let Some((name, gb_type)) =
        qualified.and_then(|q| EXPLICIT_BREAKS.iter().find(|(name, _)| *name == q))
    else {
        return;
    };
    if !checker.semantic().in_function() {
        return;
    }
    let label = super::graph_break_label(gb_type);
    checker.report(
        &DeliberateGraphBreak::META,
        Finding::new(
            call.range(),
            format!(
                "explicit `{name}()`: a deliberate graph break, the traced code is split into two graphs here; inside a higher-order op's body (a `torch.cond` branch) the whole op fails to capture instead ({label})"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}

/// The message for a call into a function Dynamo does not trace (`disabled_callee`).
fn disabled_call_message(info: &FunctionInfo, path: &std::path::Path, sym: &Sym) -> String {
    let name = info.qualified_name();
    let line = info.line;
    let file = super::file_name(path);
    if let Some(marked) = &info.marked_by {
        let label = super::graph_break_label(&marked.gb_type);
        let marker = &marked.marker;
        let since = since_text(marked);
        if info.name == "forward"
            && let Some(class) = &info.class
        {
            return format!(
                "call of a module of class `{class}`, which is marked as a whole by `{marker}` ({file}:{line}): Dynamo runs its `forward` eagerly, a deliberate graph break{since} ({label})"
            );
        }
        return format!(
            "call into `{name}`, which is marked by `{marker}` ({file}:{line}): Dynamo runs it eagerly, a deliberate graph break{since} ({label})"
        );
    }
    let frame_only = info.disabled_frame_only && !info.disabled;
    // Dynamo skips a disabled function when it calls it, and a disabled method (or a
    // `recursive=False` function, whose wrapper it inlines) when it inlines the bound call
    // (measured on torch 2.11: GB0098 and GB0099).
    let gb_type = match sym {
        Sym::Dotted(_) | Sym::Local(_) if !frame_only => {
            "Skip calling `torch.compiler.disable()`d function"
        }
        _ => "Skip inlining `torch.compiler.disable()`d function",
    };
    let (marker, effect) = if frame_only {
        (
            "`@torch.compiler.disable(recursive=False)`d",
            "Dynamo runs its own frame eagerly (its callees are still traced)",
        )
    } else {
        ("`@torch.compiler.disable`d", "Dynamo runs it eagerly")
    };
    format!(
        "call into `{name}`, which is {marker} ({file}:{line}): {effect}, a deliberate graph break ({})",
        super::graph_break_label(gb_type),
    )
}

/// ` (torch >= 2.5)` when the break holds only from a newer torch than the oldest generated.
fn since_text(marked: &Marked) -> String {
    marked
        .since
        .map(|since| format!(" on torch >= {since}"))
        .unwrap_or_default()
}

/// Calls from traced code into a disabled project function.
fn check_project(project: &Project<'_>, file: FileId) -> Vec<Candidate> {
    let summary = &project.files[file as usize];
    let mut out = Vec::new();
    for site in &summary.call_sites {
        if !project.may_trace(file, site.func) {
            continue;
        }
        let edge = &summary.functions[site.func as usize].calls[site.call as usize];
        let Some((info, path)) = project.disabled_callee(&edge.sym, file) else {
            continue;
        };
        let message = disabled_call_message(info, path, &edge.sym);
        let candidate = super::project_candidate(
            &DeliberateGraphBreak::META,
            message,
            (site.location, site.end_location),
            Some(site.func),
            edge.path.to_vec(),
            Hazard::GraphBreak,
        );
        if project.is_traced(file, &candidate) {
            out.push(candidate);
        }
    }
    // A disabled function reached only through the values the type flow follows: passed in as
    // an argument (`outer(f, x)` → `return fn(x)`), stored and called back. Measured on torch
    // 2.11: GB0098 at the call, as for a direct call.
    let mut seen: Vec<(u32, u32)> = out
        .iter()
        .map(|c| (c.location.row, c.location.column))
        .collect();
    for func in 0..summary.functions.len() as FuncIdx {
        if !project.may_trace(file, func) {
            continue;
        }
        for (call, name, path, line) in project.disabled_flow_callees(file, func) {
            let at = (call.location.row, call.location.column);
            if seen.contains(&at) {
                continue;
            }
            let candidate = super::project_candidate(
                &DeliberateGraphBreak::META,
                format!(
                    "call into `{name}` (passed in as a value), which is `@torch.compiler.disable`d ({}:{line}): Dynamo runs it eagerly, a deliberate graph break ({})",
                    super::file_name(path),
                    super::graph_break_label("Skip calling `torch.compiler.disable()`d function"),
                ),
                (call.location, call.end_location),
                Some(func),
                call.path.to_vec(),
                Hazard::GraphBreak,
            );
            if project.is_traced(file, &candidate) {
                seen.push(at);
                out.push(candidate);
            }
        }
    }
    out
}
