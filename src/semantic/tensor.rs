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
