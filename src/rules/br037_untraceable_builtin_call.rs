use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::summary::Hazard;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags, in code Dynamo traces, a call of a Python builtin Dynamo has no handler for:
    /// `eval("...")`, `exec("...")`, `compile(...)`, `globals()`, `locals()`, `open(path)`,
    /// `hash(obj)`, `hex(n)` / `oct(n)` / `bin(n)` / `ascii(obj)`, `bytes(...)`,
    /// `bytearray(...)`, `object()`, and — on the torch versions where they break — `vars()`,
    /// `dir()`, `format(...)`, `frozenset(...)`, `complex(...)`.
    ///
    /// The list is `rules/data/builtin_breaks.toml`, generated from each installed torch by
    /// `scripts/gen_torch_data.py` (`scripts/torch_data/gen_builtin_breaks.py`): every callable of
    /// the `builtins` module that Dynamo's `BuiltinVariable` has no `call_<name>` handler,
    /// constant-fold or FX-graph function for is compiled with `fullgraph=True` (backend
    /// "eager") with each sample argument set that runs eagerly (none, a tensor, an int, a
    /// string, a call of its own for `eval` / `exec` / `compile` / `open`), and kept only when
    /// every one breaks. A call is flagged when the builtin breaks on every generated torch at or
    /// above the project's floor. Only the builtin itself: a name bound in the file (a
    /// parameter, local, `def`, import) shadows it. `print` is BR004's.
    ///
    /// ## Why is this bad?
    /// Dynamo ends the graph before the call, runs it eagerly and starts a new graph after it
    /// (torch 2.8 to 2.11: GB0059 "Failed to trace builtin operator"; 2.2 and 2.5 raise the same
    /// refusal under older messages). `eval` and `exec` run code Dynamo cannot see, `globals()`
    /// and `locals()` expose frames it rewrote, and the text and byte conversions are C
    /// functions it has no model of.
    ///
    /// ## Example
    /// ```python
    /// class Net(nn.Module):
    ///     def forward(self, x):
    ///         act = eval(self.act_expr)   # GB0059: graph break
    ///         return act(x)
    /// ```
    ///
    /// ## Fix
    /// Resolve the code once, outside the compiled function (in `__init__`: a dict of
    /// callables instead of `eval` of a name), and keep file access, hashing and text
    /// formatting out of `forward`.
    ///
    /// ## Torch versions
    /// Per builtin, as the table says: `eval`, `exec`, `compile`, `globals`, `locals`, `open`,
    /// `hash`, `hex`, `oct`, `bin`, `ascii`, `bytes`, `bytearray`, `object` break on every torch
    /// from 2.2 to 2.11; `vars()`, `dir()`, `complex` and others trace on 2.11.
    pub struct UntraceableBuiltinCall {
        code: "BR037",
        name: "untraceable-builtin-call",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "call of a Python builtin Dynamo has no handler for (eval, exec, compile, globals, locals, open, hash, hex, ...) in traced code: graph break",
        hooks: { call: check_call },
    }
}

/// Builtins the table holds that another rule reports with its own cause (one cause, one
/// finding): `print` is BR004's.
const REPORTED_ELSEWHERE: &[&str] = &["print"];

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, _qualified: Option<&str>) {
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let Expr::Name(name) = &*call.func else {
        return;
    };
    let builtin = name.id.as_str();
    if REPORTED_ELSEWHERE.contains(&builtin) || !semantic.is_builtin(&call.func, builtin) {
        return;
    }
    let Some(entry) = TORCH
        .generated
        .builtin_breaks
        .on_every_from(builtin, semantic.torch_floor())
    else {
        return;
    };
    let label = entry
        .gb_type
        .as_deref()
        .map_or_else(|| "graph break".to_owned(), super::graph_break_label);
    checker.report(
        &UntraceableBuiltinCall::META,
        Finding::new(
            call.range(),
            format!(
                "`{builtin}()` is a builtin Dynamo has no handler for: calling it in compiled code is a graph break ({label})"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
