use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::data::TORCH;
use crate::semantic::generated::IntParameters;
use crate::semantic::model::Hypothesis;
use crate::semantic::summary::Hazard;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags torch ops that return a Python `bool` computed from tensor values, in code Dynamo
    /// traces: `torch.equal(a, b)` / `a.equal(b)`, `torch.allclose(a, b)` / `a.allclose(b)` and
    /// `torch.is_nonzero(t)`; and tensors used as slice bounds (`x[start:stop]` with `start` a
    /// tensor), which Python must turn into ints; and `torch.arange` with a tensor start, end or
    /// step (`torch.arange(lengths.max())`: a 0-d tensor sizes the output, GB0033 on torch 2.11);
    /// and the builtin `range` with a tensor argument (`for i in range(counts[0]):`, `range(n)`
    /// with `n = x.argmax()`), which needs a Python int (GB0059 "Failed to trace builtin
    /// operator" on torch 2.8 and 2.11; 2.2 and 2.5 broke the same way, "builtin: range"); and
    /// a `math` function given a tensor (`math.floor(t.sum())`, `math.isnan(loss)`,
    /// `math.exp(x.mean())`): the `math` module computes on Python numbers, so the tensor's
    /// value is read (GB0033 on torch 2.8 and 2.11, "data dependent operator:
    /// aten._local_scalar_dense" on 2.2 and 2.5); and a tensor given where a torch op takes an
    /// int (`torch.zeros(n)`, `x.new_zeros(b, n)`, `x.view(n, -1)`, `x.topk(k)`,
    /// `F.pad(x, (0, n))` with `n = lengths.max()`): the parameters come from the op schemas
    /// (`rules/data/int_parameters.toml`: int, SymInt and int-list parameters in every overload),
    /// and only a tensor whose value depends on tensor data counts — one made by torch functions
    /// from shape ints alone (`torch.div(x.size(1), 2)`) is folded by Dynamo and traces. Each
    /// parameter is measured under Dynamo (`breaks` in the table: a call built from the schema,
    /// compiled with a Python int, which must trace, and with `(m > 0).sum()` there): on torch
    /// 2.11, 387 of 743 parameters (261 of 420 spellings) were measured and every one broke
    /// with GB0033 (2.8 the same; 2.2 and 2.5 broke too); none traced. A parameter measured as
    /// tracing on a torch in the project's range is not flagged; the 356 no call could be built
    /// for (convolutions, accelerator-only ops) keep GB0033, which every measured one gives and
    /// which a hand-built call proves (tests/python/test_int_parameters_table.py).
    ///
    /// For `range`, `torch.arange`, `math.*` and slice bounds, a parameter the function alone
    /// cannot type counts as a tensor where a call Dynamo traces into it passes one (a call of
    /// the compiled function, `opt = torch.compile(fn)` then `opt(x, torch.randint(1, 4, ()))`,
    /// or a traced caller): the finding names the parameters and holds once linking finds such a
    /// call, as BR001's branch on a parameter does.
    ///
    /// ## Why is this bad?
    /// The result is a host value that depends on the data, so Dynamo cannot keep it symbolic: it
    /// ends the graph, runs the op eagerly and resumes (torch 2.11: GB0033 "Data dependent
    /// operator", `aten.equal.default` "has a non-Tensor output"; torch 2.2 broke the same way).
    /// On an accelerator it is also a device→host sync. Typical in model code as a guard such as
    /// `if torch.equal(mask, full_mask): ...` or an `assert torch.allclose(...)` left in a forward.
    /// A tensor slice bound is read with `.item()`: GB0124 on torch 2.11 (torch 2.2: "Dynamic
    /// slicing on data-dependent value"); in a mask-pasting helper of a detection model it was
    /// a measured runtime break.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x, mask):
    ///     if torch.equal(mask, torch.ones_like(mask)):
    ///         return self.fast(x)
    /// ```
    ///
    /// ## Fix
    /// Compute on tensors (`torch.where((a == b).all(), ...)`), move the check out of the compiled
    /// function, or keep it eager-only under `if not torch.compiler.is_compiling():`.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2 and 2.11 (`range` and `math`: 2.2, 2.5, 2.8 and 2.11).
    pub struct DataDependentScalarOp {
        code: "BR005",
        name: "data-dependent-scalar-op",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "torch.equal / allclose / is_nonzero, a tensor as a slice, arange or range bound, as a size or count torch takes as an int, or in math.* in traced code: a data-dependent Python value, graph break",
        hooks: { call: check_call, subscript: check_subscript },
    }
}

const FUNCTIONS: &[&str] = &["torch.equal", "torch.allclose", "torch.is_nonzero"];
const METHODS: &[&str] = &["equal", "allclose"];

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let semantic = checker.semantic();
    if !semantic.in_function() {
        return;
    }
    let what = match qualified {
        Some(q) if FUNCTIONS.contains(&q) => format!("`{q}()`"),
        Some("torch.arange") => return check_arange(checker, call),
        Some(q) if q.starts_with("math.") => return check_math(checker, call, q),
        Some(q) => return check_int_parameters(checker, call, q),
        None if is_builtin_range(checker, call) => return check_range(checker, call),
        None => match &*call.func {
            Expr::Attribute(attribute)
                if METHODS.contains(&attribute.attr.id.as_str())
                    && call.arguments.args.len() == 1
                    && semantic.receiver_may_be_tensor(&attribute.value, 0) =>
            {
                format!("`.{}()`", attribute.attr.id)
            }
            // A call without arguments passes no int (and skips building the spelling).
            Expr::Attribute(attribute)
                if !call.arguments.is_empty()
                    && semantic.receiver_may_be_tensor(&attribute.value, 0) =>
            {
                let spelling = format!("Tensor.{}", attribute.attr.id);
                return check_int_parameters(checker, call, &spelling);
            }
            _ => return,
        },
    };
    checker.report(
        &DataDependentScalarOp::META,
        Finding::new(
            call.range(),
            format!(
                "{what} returns a Python bool computed from tensor values: graph break under torch.compile (GB0033 Data dependent operator)"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}

/// `torch.arange(n)` with `n` a tensor (`lengths.max()`): arange takes numbers, so a tensor bound
/// is a 0-d tensor whose value sizes the output.
fn check_arange(checker: &mut Checker<'_>, call: &ast::ExprCall) {
    let bounds = call.arguments.args.iter().chain(
        call.arguments
            .keywords
            .iter()
            .filter(|k| {
                k.arg
                    .as_ref()
                    .is_some_and(|a| matches!(a.as_str(), "start" | "end" | "step"))
            })
            .map(|k| &k.value),
    );
    let Some(operand) = tensor_operand(checker, bounds) else {
        return;
    };
    report_scalar_read(
        checker,
        call.range(),
        "`torch.arange` with a tensor bound needs the tensor's value to size its output: graph break under torch.compile (GB0033 Data dependent operator), and a device sync on an accelerator".to_owned(),
        operand,
    );
}

fn is_builtin_range(checker: &Checker<'_>, call: &ast::ExprCall) -> bool {
    checker.semantic().is_builtin(&call.func, "range")
}

/// Whether a value read for its number is a tensor: known from the function's own code, or a
/// tensor where a call (of the compiled function, or from traced code) passes one for these
/// parameters, or where a project call these locals were bound from returns one (linking
/// decides, as for BR001's branch on a parameter).
enum TensorOperand {
    Tensor,
    IfInputs(Hypothesis),
}

/// The first of `operands` known to be a tensor; else the parameters and returned locals that
/// would make one a tensor, when some would.
fn tensor_operand<'e>(
    checker: &Checker<'_>,
    operands: impl IntoIterator<Item = &'e Expr>,
) -> Option<TensorOperand> {
    let semantic = checker.semantic();
    let mut inputs = Hypothesis::default();
    for operand in operands {
        match semantic.tensor_kind(operand) {
            TensorKind::Tensor => return Some(TensorOperand::Tensor),
            TensorKind::NotTensor => {}
            TensorKind::Unknown => {
                if let Some(used) = semantic.tensor_if_inputs_are(operand) {
                    inputs.merge(used);
                }
            }
        }
    }
    (!inputs.is_empty()).then_some(TensorOperand::IfInputs(inputs))
}

/// Reports a finding on `range` whose tensor operand is `operand`: as it is when known, or
/// holding only where a call passes a tensor for the parameters, or a project call returns one
/// (the message names them).
fn report_scalar_read(
    checker: &mut Checker<'_>,
    range: ruff_text_size::TextRange,
    message: String,
    operand: TensorOperand,
) {
    let inputs = match operand {
        TensorOperand::Tensor => None,
        TensorOperand::IfInputs(inputs) => Some(inputs),
    };
    let finding = Finding::on_tensor_or_inputs(range, message, inputs);
    checker.report(
        &DataDependentScalarOp::META,
        finding.with_hazard(Hazard::GraphBreak),
    );
}

/// `range(n)` with `n` known to be a tensor: `range` calls `__index__`, a data-dependent int.
fn check_range(checker: &mut Checker<'_>, call: &ast::ExprCall) {
    let Some(operand) = tensor_operand(checker, &call.arguments.args) else {
        return;
    };
    report_scalar_read(
        checker,
        call.range(),
        "`range()` over a tensor bound needs the tensor's value as a Python int: graph break under torch.compile (GB0059 Failed to trace builtin operator), and a device sync on an accelerator".to_owned(),
        operand,
    );
}

/// A tensor given where the op's schema takes an int or an int list (`torch.zeros(n)`,
/// `x.new_zeros(b, n)`, `x.view(n, -1)`, `x.topk(k)`, `F.pad(x, (0, n))` with `n` a tensor):
/// torch needs a Python int there, so the tensor's value is read. What Dynamo does is measured
/// per spelling and parameter (`breaks` in the table): the message names the measured code.
fn check_int_parameters(checker: &mut Checker<'_>, call: &ast::ExprCall, spelling: &str) {
    let semantic = checker.semantic();
    let Some(on_versions) = TORCH
        .generated
        .int_parameters
        .every_from(spelling, semantic.torch_floor())
    else {
        return;
    };
    let Some(&newest) = on_versions.last() else {
        return;
    };
    let Some((param, gb_type)) = tensor_int_arguments(checker, call, newest)
        .into_iter()
        .find_map(|param| Some((param, measured_break(&on_versions, param)?)))
    else {
        return;
    };
    let label = super::graph_break_label(gb_type);
    let shown = spelling.strip_prefix("Tensor.").map_or_else(
        || format!("`{spelling}()`"),
        |method| format!("`.{method}()`"),
    );
    checker.report(
        &DataDependentScalarOp::META,
        Finding::new(
            call.range(),
            format!(
                "{shown} takes a Python int for `{param}`: a tensor there is read for its value, graph break under torch.compile ({label}), and a device sync on an accelerator; pass a shape entry or an int computed on the host"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}

/// The graph-break type a data-dependent tensor in `param` gives, from the measurement on each
/// torch in the project's range: None when some torch there compiled it whole (`none`). A
/// parameter no call could be built for (`unmeasured`) keeps the break every measured one gives
/// (GB0033 "Data dependent operator": the fake kernel reads the 0-d tensor's value), proved on
/// representative calls in tests/python/test_recall_proofs.py.
fn measured_break(on_versions: &[&IntParameters], param: &str) -> Option<&'static str> {
    const DATA_DEPENDENT: &str = "Data dependent operator";
    if on_versions
        .iter()
        .any(|entry| entry.measured(param) == "none")
    {
        return None;
    }
    let newest = on_versions.last()?.measured(param);
    match newest {
        "unmeasured" | "breaks" => Some(DATA_DEPENDENT),
        code => TORCH.generated.gb_type_of(code),
    }
}

/// The int parameters a data-dependent tensor is given to (directly or as an element of a tuple
/// or list literal), in the table's order.
fn tensor_int_arguments<'e>(
    checker: &Checker<'_>,
    call: &ast::ExprCall,
    entry: &'e IntParameters,
) -> Vec<&'e str> {
    let semantic = checker.semantic();
    // A tensor made from ints and shapes alone (`torch.div(h.size(1), 2)`) is folded by Dynamo:
    // only a tensor whose value depends on tensor data is read at run time.
    let holds_tensor = |expr: &Expr| match expr {
        Expr::Tuple(tuple) => tuple
            .elts
            .iter()
            .any(|e| semantic.is_data_dependent_tensor(e)),
        Expr::List(list) => list
            .elts
            .iter()
            .any(|e| semantic.is_data_dependent_tensor(e)),
        Expr::Starred(_) => false,
        other => semantic.is_data_dependent_tensor(other),
    };
    let positional = &call.arguments.args;
    if positional.iter().any(Expr::is_starred_expr) {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (param, &position) in entry.params.iter().zip(&entry.positions) {
        let by_keyword = call
            .arguments
            .find_keyword(param)
            .is_some_and(|keyword| holds_tensor(&keyword.value));
        let by_position = usize::try_from(position)
            .is_ok_and(|position| positional.get(position).is_some_and(holds_tensor));
        if by_keyword || by_position {
            found.push(param.as_str());
        }
    }
    if found.is_empty()
        && entry.varargs
        && positional.len() > 1
        && positional
            .iter()
            .any(|e| semantic.is_data_dependent_tensor(e))
        && let Some(first) = entry.params.first()
    {
        found.push(first.as_str());
    }
    found
}

/// `math.floor(t)` with `t` known to be a tensor: the math module converts its arguments to
/// Python numbers (`__float__` / `__index__`), reading the tensor's value.
fn check_math(checker: &mut Checker<'_>, call: &ast::ExprCall, name: &str) {
    let Some(operand) = tensor_operand(checker, &call.arguments.args) else {
        return;
    };
    report_scalar_read(
        checker,
        call.range(),
        format!(
            "`{name}()` of a tensor reads its value as a Python number: graph break under torch.compile (GB0033 Data dependent operator), and a device sync on an accelerator; use the torch op (`torch.floor`, `torch.isnan`, ...)"
        ),
        operand,
    );
}

/// `x[start:stop]` / `x[a:b, c:d]` where a bound is known to be a tensor.
fn check_subscript(checker: &mut Checker<'_>, subscript: &ast::ExprSubscript) {
    if !checker.semantic().in_function() {
        return;
    }
    let slices: Vec<&ast::ExprSlice> = match &*subscript.slice {
        Expr::Slice(slice) => vec![slice],
        Expr::Tuple(tuple) => tuple.elts.iter().filter_map(Expr::as_slice_expr).collect(),
        _ => return,
    };
    let bounds = slices.iter().flat_map(|slice| {
        [&slice.lower, &slice.upper, &slice.step]
            .into_iter()
            .flatten()
            .map(|bound| &**bound)
    });
    let Some(operand) = tensor_operand(checker, bounds) else {
        return;
    };
    report_scalar_read(
        checker,
        subscript.range(),
        "a tensor used as a slice bound is read as a Python int: graph break under torch.compile (GB0124 Tensor.item())".to_owned(),
        operand,
    );
}
