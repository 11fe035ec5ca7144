use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::summary::Hazard;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags, in code Dynamo traces, a call of a `torch.Tensor` method that Dynamo does not
    /// trace: `loss.backward()` in a compiled training step, `x.requires_grad_()` in a
    /// `forward`, `t.storage_offset()`, `t.storage()`, `t.is_inference()`, `t.is_conj()`, ... and,
    /// from the torch version where they start to break, `t.retain_grad()` and `t.random_()`.
    ///
    /// The list is `rules/data/tensor_method_breaks.toml`, generated from each installed torch by
    /// `scripts/gen_torch_data.py`: every public method of `torch.Tensor` that runs without
    /// arguments on a small tensor is compiled with `fullgraph=True` (backend "eager") twice —
    /// called on a tensor the function received and on one it computed — and kept only when
    /// Dynamo raises its graph-break exception both times. A call is flagged when the method
    /// breaks on every generated torch at or above the project's floor. Methods other rules
    /// report with their own cause are left to them: `.item()` / `.tolist()` (SY002, BR005),
    /// `.is_nonzero()` (BR005), `.data_ptr()` (BR007), ops with a data-dependent output shape
    /// (BR003).
    ///
    /// The receiver must be able to be a tensor: not `self`, not a module, class, function or
    /// import, not an instance of a plain class of the file, not a value known to be something
    /// else. A boolean argument the table measured tracing is not flagged:
    /// `t.requires_grad_(False)` traces on torch 2.5 to 2.11; nor is a value there that is not
    /// a literal (`t.requires_grad_(flag)`), which may be that one.
    ///
    /// ## Why is this bad?
    /// Dynamo ends the graph before the call, runs the method eagerly and starts a new graph
    /// after it. `Tensor.backward()` is GB0123 on torch 2.11 ("This graph break is fundamental"):
    /// a compiled training step that calls `loss.backward()` inside compiles forward and loss as
    /// one graph and the rest as another, and inside a loop the whole frame runs eagerly.
    /// `requires_grad_()` on a tensor made in the graph is GB0125; the storage and layout
    /// queries return Python values Dynamo does not model ("torch.* op returned non-Tensor",
    /// GB0208).
    ///
    /// ## Example
    /// ```python
    /// @torch.compile
    /// def train_step(model, batch, target):
    ///     loss = F.cross_entropy(model(batch), target)
    ///     loss.backward()          # GB0123: graph break
    ///     return loss
    /// ```
    ///
    /// ## Fix
    /// Compile the model (or the forward and loss) and call `.backward()` outside the compiled
    /// function; with compiled autograd, backward is captured separately
    /// (`torch._dynamo.config.compiled_autograd`). Create tensors that need grad outside the
    /// compiled code, and keep storage and layout queries eager-only.
    ///
    /// ## Torch versions
    /// Per method, as the table says; `backward`, `requires_grad_` and the storage and layout
    /// queries break on every torch from 2.2 to 2.11.
    pub struct UntraceableTensorMethod {
        code: "BR035",
        name: "untraceable-tensor-method",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "Tensor method Dynamo does not trace (t.backward(), t.requires_grad_(), t.storage_offset(), ...) in traced code: graph break",
        hooks: { call: check_call },
    }
}

/// Methods the table holds that another rule reports with its own cause (one cause, one finding).
const REPORTED_ELSEWHERE: &[&str] = &["item", "tolist", "is_nonzero", "data_ptr"];

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let semantic = checker.semantic();
    if qualified.is_some() || !semantic.in_function() {
        return;
    }
    let Expr::Attribute(attribute) = &*call.func else {
        return;
    };
    let method = attribute.attr.id.as_str();
    if REPORTED_ELSEWHERE.contains(&method)
        || TORCH.generated.dynamic_shape_methods.contains(method)
    {
        return;
    }
    let Some(entry) = TORCH
        .generated
        .tensor_method_breaks
        .on_every_from(method, semantic.torch_floor())
    else {
        return;
    };
    if !semantic.receiver_may_be_tensor(&attribute.value, 0) {
        return;
    }
    // `t.requires_grad_(False)`: measured tracing (the table's `traces_with`). A value that is
    // not a literal (`requires_grad_(flag)`) may be that one: not claimed.
    let passed = |keyword: &str, position: i64| {
        call.arguments
            .find_keyword(keyword)
            .map(|k| &k.value)
            .or_else(|| {
                usize::try_from(position)
                    .ok()
                    .and_then(|p| call.arguments.args.get(p))
            })
    };
    for (keyword, tracing, position) in entry.traces_with_specs() {
        match passed(keyword, position) {
            Some(Expr::BooleanLiteral(literal)) if literal.value == tracing => return,
            Some(Expr::BooleanLiteral(_)) | None => {}
            Some(_) => return,
        }
    }
    let label = entry
        .gb_type
        .as_deref()
        .map_or_else(|| "graph break".to_owned(), super::graph_break_label);
    checker.report(
        &UntraceableTensorMethod::META,
        Finding::new(
            call.range(),
            format!(
                "`.{method}()` is a Tensor method Dynamo does not trace: calling it in compiled code is a graph break ({label})"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
