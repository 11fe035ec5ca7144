use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::generated::OpTags;
use crate::semantic::model::SemanticModel;
use crate::semantic::summary::Hazard;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags ops whose output shape depends on tensor values, in code Dynamo traces: the public
    /// spellings of the aten ops torch tags `dynamic_output_shape` (`rules/data/op_tags.toml`,
    /// generated from the installed torches: `torch.nonzero` / `.nonzero()`,
    /// `torch.masked_select`, `torch.unique` / `.unique()`, `torch.unique_consecutive`,
    /// `torch.bincount`, `torch.argwhere`, `torch.linalg.lstsq`, `F.ctc_loss`,
    /// `torch.repeat_interleave` with tensor repeats; each measured breaking under real Dynamo on
    /// the torches of its range, a tagged op Dynamo traces whole is not flagged), single-argument
    /// `torch.where(cond)` (a composite with no tag of its own), torchvision's
    /// `nms` / `batched_nms` (also as `torch.ops.torchvision.nms`), reading `x[mask]` with a
    /// boolean tensor mask, and `F.one_hot(t)` without `num_classes`.
    ///
    /// A boolean mask is recognised only where it is known to be a boolean tensor: a comparison
    /// with a tensor operand (`scores > 0.5` where `scores` is a tensor, or a comparison on the
    /// indexed tensor itself: `boxes[boxes[:, 2] > 0]`), `isnan`/`isfinite`/`logical_*`/`.bool()`
    /// of a tensor, `.to(torch.bool)`, any torch factory given `dtype=torch.bool`
    /// (`torch.zeros(n, dtype=torch.bool)`, `~torch.eye(n, dtype=torch.bool)`,
    /// `x.new_ones(n, dtype=torch.bool)`), `torch.full(shape, False)` (torch infers `torch.bool`
    /// from a bool fill value), `torch.tensor([True, False])`, `~m`, `m1 & m2`, or a local assigned
    /// from one of those (through further locals: `c = c1 & c2` with `c1 = ~torch.isclose(...)`).
    /// A local assigned differently on the paths of an `if` / `match` is a mask when a mask is
    /// assigned on any path that reaches the read (`if c: m = x > 0 else: m = helper(x)`: the
    /// path that holds the comparison breaks). Across calls: a mask built from parameters
    /// (`m = x > 0` with `x` a parameter) is one where some traced call passes tensors for them,
    /// and a parameter used as the index (`def pick(x, m): return x[:, m]`) is one where some
    /// traced call passes a mask for it (`pick(x, kind == i)`; the message names the parameter).
    /// A compiled module's input annotated `Optional[Tensor]` (default `None`) is a tensor
    /// whenever its user passes one (`x[padding_mask.bool()]`); a default other than `None`
    /// (`= False`) says the input is something else.
    /// A local bound to what a project function returns (`dense, mask = to_dense(x, lengths)`,
    /// by tuple position) is a mask where some `return` of the callee hands one back there: built
    /// in the callee, or from the callee's parameters where this call passes tensors; a return
    /// only eager code reaches (behind `torch.jit.is_tracing()`) does not count. A view or a part
    /// of a mask is one (`m.view(b, n)`, `m.reshape(-1)`, `m[0]`, `m[:, :k]`: the dtype stays).
    /// A mask breaks in every index position (`x[m]`,
    /// `x[:, m]`, `x[..., m]`; measured on torch 2.2, 2.5, 2.8 and 2.11). Also a comparison of an element of
    /// an unknown container used to index an element of another (or a tensor): `valid = labels[i]
    /// > -1; boxes[i][valid]`, where `labels` and `boxes` are lists of tensors in practice; and a
    /// comparison of a numpy value (`x[cond < 0]` with `cond = np.asarray(w) * 2`): Dynamo traces
    /// numpy arrays as tensors, so the numpy mask read breaks the same way (GB0036, measured on
    /// torch 2.11). `x[m] = v` (an assignment through
    /// a mask) is not flagged: Dynamo traces it as a masked fill. An augmented assignment through
    /// a mask (`x[m] += v`) is: it reads `x[m]` first, and that read is the dynamic-shape op
    /// (measured on torch 2.2, 2.5, 2.8 and 2.11).
    ///
    /// Not flagged either (for every rule): the `forward` of a Module whose class decorator
    /// replaces `forward` with a dispatcher that never calls the original directly (a kernel
    /// dispatcher installed on mixture-of-experts blocks, say). Calling the Module runs the
    /// implementation the dispatcher picks (a grouped matmul by default: 0 graph breaks measured on
    /// two tiny MoE models under torch 2.11, against 12 `nonzero` breaks with the eager loop); the
    /// class's own eager loop is only the fallback a user must ask for.
    ///
    /// ## Why is this bad?
    /// Dynamo cannot give the result a static shape, so by default it ends the graph before the
    /// op, runs it eagerly and starts a new graph after it (torch 2.11: GB0036 "Dynamic shape
    /// operator"; `one_hot`: GB0246). In detection models these ops (box filtering, NMS, per-class
    /// loops over `unique`) were most of the graph breaks measured: 12 of 15 in a compiled
    /// keypoint detector.
    ///
    /// With `torch._dynamo.config.capture_dynamic_output_shape_ops = True` Dynamo keeps them in
    /// the graph on torch 2.11 (measured for every op above except `one_hot`); on torch 2.2 the
    /// flag covered `nonzero`/`where`/mask indexing/`repeat_interleave` but `masked_select`,
    /// `unique` and `bincount` still broke. Ops with no meta kernel (`torch.linalg.lstsq`,
    /// `F.ctc_loss`) break with the flag too ("Dynamic shape operator (no meta kernel)", measured by
    /// the generator: the table's `captured`), and the message says so.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, boxes, scores):
    ///     keep = scores > self.threshold
    ///     return boxes[keep]
    /// ```
    ///
    /// ## Fix
    /// Keep shapes static: `torch.where(keep, boxes, 0)` or multiply by the mask, `topk` with a
    /// fixed `k`, `one_hot(t, num_classes=C)`; or set `capture_dynamic_output_shape_ops = True`
    /// (torch 2.11) and mark the boundary with `torch._check` hints; or move post-processing
    /// (NMS, matching) out of the compiled function.
    ///
    /// ## Torch versions
    /// Measured breaking on torch 2.2 and 2.11 with the default configuration.
    pub struct DataDependentOutputShape {
        code: "BR003",
        name: "data-dependent-output-shape",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "op with a data-dependent output shape (nonzero, mask indexing, unique, nms...): graph break",
        hooks: { call: check_call, subscript: check_subscript, statement: check_statement },
    }
}

/// Functions with a data-dependent output shape that carry no aten tag: torchvision's NMS ops
/// (measured breaking on torch 2.2 and 2.11). Every torch one comes from the op-tag table
/// (`rules/data/op_tags.toml`, `torch.Tag.dynamic_output_shape`, measured; `argwhere` is tagged,
/// though `dir(torch.ops.aten)` did not list it before its first call).
const UNTAGGED_DYNAMIC_SHAPE_FUNCTIONS: &[&str] = &[
    "torchvision.ops.nms",
    "torchvision.ops.batched_nms",
    "torchvision.ops.boxes.nms",
    "torchvision.ops.boxes.batched_nms",
    "torch.ops.torchvision.nms",
];

const FLAG_HINT: &str = "unless torch._dynamo.config.capture_dynamic_output_shape_ops = True";

/// Tagged `dynamic_output_shape` for every call on some generated torch (`bincount` gained its
/// tag after 2.5 but broke there too: the tag is the newer torch's statement of the fact).
fn tagged_dynamic_shape(spelling: &str) -> bool {
    TORCH
        .generated
        .op_tags
        .latest(spelling)
        .is_some_and(OpTags::dynamic_shape_on_every_call)
}

/// Measured on the newest generated torch: the op breaks with the flag too (an op with no meta
/// kernel: "Dynamic shape operator (no meta kernel)").
const BREAKS_WITH_FLAG_HINT: &str =
    "(also with torch._dynamo.config.capture_dynamic_output_shape_ops = True, measured)";

/// What `capture_dynamic_output_shape_ops` does for this function, as measured.
fn flag_hint(spelling: &str) -> &'static str {
    let breaks_anyway = TORCH
        .generated
        .op_tags
        .latest(spelling)
        .is_some_and(OpTags::breaks_with_capture);
    if breaks_anyway {
        BREAKS_WITH_FLAG_HINT
    } else {
        FLAG_HINT
    }
}

/// "GB0036 Dynamic shape operator" on a torch whose registry has the code.
fn dynamic_shape_label() -> String {
    super::graph_break_label("Dynamic shape operator")
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let message = match qualified {
        Some(q) if UNTAGGED_DYNAMIC_SHAPE_FUNCTIONS.contains(&q) || tagged_dynamic_shape(q) => {
            format!(
                "`{q}` has a data-dependent output shape: graph break under torch.compile ({}) {}",
                dynamic_shape_label(),
                flag_hint(q)
            )
        }
        Some("torch.where") => {
            if call.arguments.args.len() != 1 || !call.arguments.keywords.is_empty() {
                return;
            }
            format!(
                "single-argument `torch.where(cond)` is `nonzero`: data-dependent output shape, graph break under torch.compile ({}) {FLAG_HINT}",
                dynamic_shape_label()
            )
        }
        Some("torch.repeat_interleave") => {
            let repeats = call
                .arguments
                .find_argument_value("repeats", 1)
                .filter(|r| semantic.tensor_kind(r) == TensorKind::Tensor);
            if repeats.is_none() {
                return;
            }
            format!(
                "`torch.repeat_interleave` with tensor repeats has a data-dependent output shape: graph break under torch.compile ({}) {FLAG_HINT}",
                dynamic_shape_label()
            )
        }
        Some("torch.nn.functional.one_hot") => {
            let classes = call.arguments.find_argument_value("num_classes", 1);
            let unknown_classes = match classes {
                None => true,
                Some(Expr::UnaryOp(unary)) => {
                    unary.op == ast::UnaryOp::USub
                        && matches!(&*unary.operand, Expr::NumberLiteral(n) if n.value.as_int().and_then(|i| i.as_u64()) == Some(1))
                }
                Some(_) => false,
            };
            if !unknown_classes {
                return;
            }
            format!(
                "`one_hot` without `num_classes` reads the largest label to size its output: graph break under torch.compile ({}), also with capture_dynamic_output_shape_ops; pass num_classes",
                super::graph_break_label(
                    "Attempted to use `torch.nn.functional.one_hot` with data-dependent output shape"
                )
            )
        }
        Some(q) => {
            // A tagged op measured breaking unless an optional argument is given (the data's
            // `unless_given`); `one_hot` has its own arm above (`num_classes=-1` is "not given").
            let Some(mut unless) = TORCH
                .generated
                .op_tags
                .latest(q)
                .and_then(OpTags::breaks_unless_given)
            else {
                return;
            };
            let mut first = None;
            if unless.any(|(keyword, position)| {
                first.get_or_insert(keyword);
                call.arguments
                    .find_argument_value(keyword, position)
                    .is_some()
            }) {
                return;
            }
            // No GB code named: the break type of such an op is its own (`one_hot`: GB0246).
            let keyword = first.unwrap_or_default();
            format!(
                "`{q}` without `{keyword}` has a data-dependent output shape: graph break under torch.compile {}; pass `{keyword}`",
                flag_hint(q)
            )
        }
        None => {
            let Expr::Attribute(attribute) = &*call.func else {
                return;
            };
            let method = attribute.attr.id.as_str();
            if method == "repeat_interleave" {
                let repeats = call.arguments.find_argument_value("repeats", 0);
                if !repeats.is_some_and(|r| semantic.tensor_kind(r) == TensorKind::Tensor)
                    || !semantic.receiver_may_be_tensor(&attribute.value, 0)
                {
                    return;
                }
            } else if !TORCH.generated.dynamic_shape_methods.contains(method)
                || !semantic.receiver_may_be_tensor(&attribute.value, 0)
            {
                return;
            }
            format!(
                "`.{method}()` has a data-dependent output shape: graph break under torch.compile ({}) {}",
                dynamic_shape_label(),
                flag_hint(&format!("Tensor.{method}"))
            )
        }
    };
    checker.report(
        &DataDependentOutputShape::META,
        Finding::new(call.range(), message).with_hazard(Hazard::GraphBreak),
    );
}

fn check_subscript(checker: &mut Checker<'_>, subscript: &ast::ExprSubscript) {
    let semantic = checker.semantic();
    if !semantic.in_function() || subscript.ctx != ast::ExprContext::Load {
        return;
    }
    // A mask made from parameters (`mask = x > 0` with `x` a parameter) is a tensor mask where
    // a call passes a tensor for them: linking decides (`tensor_params`, as for BR001).
    let params = if is_masked_tensor_read(semantic, subscript) {
        None
    } else {
        let mask_params = semantic
            .holds_if_inputs_are_tensors(|| {
                semantic.is_bool_mask(&subscript.slice, &subscript.value)
            })
            .filter(|_| semantic.tensor_kind(&subscript.value) != TensorKind::NotTensor);
        match mask_params {
            Some(params) => Some(params),
            None => return check_mask_parameter(checker, subscript),
        }
    };
    checker.report(
        &DataDependentOutputShape::META,
        Finding::on_tensor_or_inputs(subscript.range(), masked_read_message(), params)
            .with_hazard(Hazard::GraphBreak),
    );
}

/// What a read through a boolean mask does (the one message of every masked-read finding).
fn masked_read_message() -> String {
    format!(
        "indexing with a boolean tensor mask has a data-dependent output shape: graph break under torch.compile ({}) {FLAG_HINT}",
        dynamic_shape_label()
    )
}

/// `x[mask]` (or `x[:, mask]`) with `mask` a parameter the body has not rebound: a boolean mask
/// where some traced call passes one for it (`helper(x, kind == i)`; linking decides).
fn check_mask_parameter(checker: &mut Checker<'_>, subscript: &ast::ExprSubscript) {
    let semantic = checker.semantic();
    let indices: &[Expr] = match &*subscript.slice {
        Expr::Tuple(tuple) => &tuple.elts,
        index => std::slice::from_ref(index),
    };
    let params: Vec<String> = indices
        .iter()
        .filter_map(|index| semantic.unrebound_param(index))
        .map(str::to_owned)
        .collect();
    if semantic.tensor_kind(&subscript.value) == TensorKind::NotTensor {
        return;
    }
    if params.is_empty() {
        return check_mask_return(checker, subscript, indices);
    }
    checker.report(
        &DataDependentOutputShape::META,
        Finding::on_mask_params(subscript.range(), &masked_read_message(), params)
            .with_hazard(Hazard::GraphBreak),
    );
}

/// `x[mask]` with `mask` a local bound to what a project call returns (`h, mask =
/// to_dense(x, batch)`): a boolean mask where the callee returns one there (linking decides).
fn check_mask_return(checker: &mut Checker<'_>, subscript: &ast::ExprSubscript, indices: &[Expr]) {
    let semantic = checker.semantic();
    let returns: Vec<_> = indices
        .iter()
        .filter_map(|index| {
            let Expr::Name(name) = index else { return None };
            let dep = semantic.returned_origin(name.id.as_str())?;
            Some((name.id.as_str().to_owned(), dep))
        })
        .collect();
    if returns.is_empty() {
        return;
    }
    checker.report(
        &DataDependentOutputShape::META,
        Finding::on_mask_returns(subscript.range(), &masked_read_message(), returns)
            .with_hazard(Hazard::GraphBreak),
    );
}

/// `x[m]` with `m` a boolean tensor mask and `x` possibly a tensor (the mask test first: most
/// subscripts index with a constant, a slice or a name).
fn is_masked_tensor_read(semantic: &SemanticModel<'_>, subscript: &ast::ExprSubscript) -> bool {
    semantic.is_bool_mask(&subscript.slice, &subscript.value)
        && semantic.tensor_kind(&subscript.value) != TensorKind::NotTensor
}

/// `x[m] += v`: Python reads `x[m]` (a dynamic-shape read), then stores it back.
fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::AugAssign(assign) = stmt else {
        return;
    };
    let Expr::Subscript(subscript) = &*assign.target else {
        return;
    };
    let semantic = checker.semantic();
    if !semantic.in_function() || !is_masked_tensor_read(semantic, subscript) {
        return;
    }
    checker.report(
        &DataDependentOutputShape::META,
        Finding::new(
            subscript.range(),
            format!(
                "an augmented assignment through a boolean tensor mask reads `x[mask]` first, which has a data-dependent output shape: graph break under torch.compile ({}) {FLAG_HINT}",
                dynamic_shape_label()
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
