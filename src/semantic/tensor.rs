//! Tensor-ness: is an expression a tensor whose *value* lives on the device?
//!
//! Three answers. `Tensor` only when we can tell (annotation, torch call, tensor method, arithmetic
//! on a tensor); `NotTensor` for host values (shapes, dtypes, sizes, literals, `is None` tests);
//! `Unknown` otherwise. Rules that turn truthiness into a finding require `Tensor`; rules on
//! unmistakably tensor-only methods (`.item()`) accept anything but `NotTensor`.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorKind {
    Tensor,
    NotTensor,
    Unknown,
}

/// Attributes of a tensor that are host metadata, static (or symbolic) under Dynamo.
pub fn is_metadata_attribute(attr: &str) -> bool {
    matches!(
        attr,
        "shape"
            | "dtype"
            | "device"
            | "ndim"
            | "is_cuda"
            | "is_cpu"
            | "is_sparse"
            | "is_quantized"
            | "is_meta"
            | "requires_grad"
            | "layout"
            | "names"
            | "training"
            | "is_leaf"
            | "itemsize"
            | "nbytes"
    )
}

/// Attributes of a tensor that are tensors themselves.
pub fn is_tensor_attribute(attr: &str) -> bool {
    matches!(
        attr,
        "T" | "mT" | "H" | "mH" | "data" | "grad" | "real" | "imag"
    )
}

/// Tensor methods returning host values (ints, sizes, flags) — never data-dependent booleans.
pub fn is_host_value_method(method: &str) -> bool {
    matches!(
        method,
        "size"
            | "dim"
            | "ndimension"
            | "numel"
            | "nelement"
            | "element_size"
            | "stride"
            | "storage_offset"
            | "get_device"
            | "is_contiguous"
            | "is_floating_point"
            | "is_complex"
            | "is_signed"
            | "data_ptr"
            | "type"
            | "item"
            | "tolist"
            | "__len__"
    )
}

/// Methods that exist on tensors and return a tensor (the common ones; enough to see a reduction
/// or a comparison feeding an `if`).
pub fn is_tensor_returning_method(method: &str) -> bool {
    matches!(
        method,
        "sum"
            | "mean"
            | "max"
            | "min"
            | "amax"
            | "amin"
            | "any"
            | "all"
            | "abs"
            | "norm"
            | "prod"
            | "std"
            | "var"
            | "argmax"
            | "argmin"
            | "eq"
            | "ne"
            | "gt"
            | "lt"
            | "ge"
            | "le"
            | "isnan"
            | "isinf"
            | "isfinite"
            | "logical_and"
            | "logical_or"
            | "logical_not"
            | "count_nonzero"
            | "nonzero"
            | "float"
            | "double"
            | "half"
            | "bfloat16"
            | "long"
            | "int"
            | "bool"
            | "clone"
            | "detach"
            | "contiguous"
            | "view"
            | "reshape"
            | "flatten"
            | "squeeze"
            | "unsqueeze"
            | "permute"
            | "transpose"
            | "expand"
            | "masked_fill"
            | "sigmoid"
            | "softmax"
            | "exp"
            | "log"
            | "sqrt"
            | "pow"
            | "clamp"
            | "matmul"
            | "mm"
            | "bmm"
            | "to"
            | "cuda"
            | "cpu"
            | "new_tensor"
            | "new_zeros"
            | "new_ones"
            | "new_full"
            | "type_as"
            | "gather"
            | "index_select"
            | "masked_select"
            | "where"
    )
}

/// Qualified names under `torch` that do not return a tensor.
pub fn torch_callable_returns_tensor(qualified: &str) -> TensorKind {
    let Some(rest) = qualified.strip_prefix("torch.") else {
        return TensorKind::Unknown;
    };
    const HOST_MODULES: &[&str] = &[
        "cuda.",
        "backends.",
        "distributed.",
        "jit.",
        "compiler.",
        "_dynamo.",
        "onnx.",
        "utils.",
        "export.",
        "fx.",
        "autograd.",
        "_C.",
        "_utils.",
        "library.",
        "multiprocessing.",
        "testing.",
        "hub.",
        "profiler.",
        "overrides.",
        "mps.",
        "xpu.",
        "cpu.",
        "amp.",
        "nn.init.",
        "nn.utils.",
        "nn.parameter.",
        "nn.modules.",
        "_logging.",
        "_inductor.",
    ];
    if HOST_MODULES.iter().any(|m| rest.starts_with(m)) {
        return TensorKind::NotTensor;
    }
    let last = rest.rsplit('.').next().unwrap_or(rest);
    if last.starts_with(|c: char| c.is_ascii_uppercase()) {
        // Classes (torch.Size, torch.Generator, nn.Linear(...)): not a tensor value.
        return TensorKind::Unknown;
    }
    if rest.starts_with("nn.") && !rest.starts_with("nn.functional.") {
        return TensorKind::Unknown;
    }
    match last {
        "is_tensor"
        | "is_storage"
        | "is_floating_point"
        | "is_complex"
        | "is_nonzero"
        | "numel"
        | "is_grad_enabled"
        | "is_inference_mode_enabled"
        | "is_autocast_enabled"
        | "get_default_dtype"
        | "get_default_device"
        | "set_default_dtype"
        | "manual_seed"
        | "seed"
        | "initial_seed"
        | "set_grad_enabled"
        | "no_grad"
        | "enable_grad"
        | "inference_mode"
        | "compile"
        | "device"
        | "dtype"
        | "finfo"
        | "iinfo"
        | "typename"
        | "is_same_size"
        | "get_num_threads"
        | "set_num_threads"
        | "use_deterministic_algorithms"
        | "are_deterministic_algorithms_enabled"
        | "result_type"
        | "promote_types"
        | "can_cast"
        | "save"
        | "load"
        | "set_printoptions"
        | "_assert"
        | "_check"
        | "cond"
        | "vmap"
        | "equal"
        | "allclose" => TensorKind::NotTensor,
        _ => TensorKind::Tensor,
    }
}
