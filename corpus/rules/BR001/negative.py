"""BR001 negatives: branches on static facts (shapes, dims, None, isinstance, len, self.training,
plain Python params), tensor branches that only run eagerly, and tensor branches outside any
compiled region. Nothing here may be reported; the region code compiles with 0 graph breaks."""

from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn


class ShapeAwareBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.1)

    def forward(self, x: torch.Tensor, mask=None, extras=(), use_residual=True):
        if x.dim() == 3:  # rank is static metadata, guarded, no break
            x = x.flatten(0, 1)
        if x.shape[-1] != 8 or x.size(0) == 0:  # shape comparisons are static
            raise ValueError("expected (N, 8) input")
        if x.numel() > 0 and x.dtype == torch.float32:
            x = self.proj(x)
        if mask is not None:  # `is None`, not a tensor value
            x = x.masked_fill(mask, 0.0)
        if isinstance(extras, (list, tuple)) and len(extras) > 0:
            x = x + sum(extras)
        if self.training:  # module flag, a Python bool
            x = self.drop(x)
        if use_residual:  # plain Python parameter (unannotated: not treated as a tensor)
            x = x + 1
        return x


class EagerOnlyCheck(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.compiler.is_compiling():
            # Eager-only sanity check: never traced.
            if torch.isnan(x).any():
                raise FloatingPointError("NaN input")
        return x * 2


class ShortCircuitGuard(nn.Module):
    def forward(self, x):
        # `not is_compiling() and ...`: under Dynamo the tensor operand is never evaluated.
        if not torch.compiler.is_compiling() and (x < 0).any():
            raise ValueError("negative input")
        return x * 2


def _is_tracing():
    # A project's own tracing helper (torchvision's `_is_tracing`): False under torch.compile.
    return torch._C._get_tracing_state()


def _compiling():
    # The getattr-then-call form: `p` is torch.compiler.is_compiling where it exists.
    p = getattr(torch.compiler, "is_compiling", None)
    return p() if p is not None else torch._dynamo.is_compiling()


# A predicate helper built from parts, evaluated rather than matched: `_compiling_fn` is
# torch.compiler.is_compiling where torch has it, else torch._dynamo.is_compiling (present on
# every torch that compiles), so it is never None and the helper is True under torch.compile.
_compiling_fn = getattr(torch.compiler, "is_compiling", None) or getattr(
    torch._dynamo, "is_compiling", None
)


def _compiling_evaluated():
    return bool(_compiling_fn()) if _compiling_fn is not None else False


class EvaluatedPredicateGuard(nn.Module):
    def forward(self, x):
        if not _compiling_evaluated():
            # Eager-only: the evaluated helper is True while compiling.
            if (x < 0).any():
                x = x.abs()
        return x + 1


class ScriptOrTraceOnly(nn.Module):
    def forward(self, x):
        if torch.jit.is_scripting() or _is_tracing():
            # TorchScript / jit.trace path: both predicates are False under torch.compile.
            if x.sum() > 0:
                x = x * 2
        if not _compiling():
            if (x < 0).any():
                x = x.abs()
        return x + 1


class FallbackAfterFailure(nn.Module):
    def forward(self, x):
        try:
            return x * 3
        except RuntimeError:
            # Reached only after an exception (e.g. out of memory): Dynamo traces the `try` path.
            if x.sum() > 0:
                x = x / 2
        # After a `try:` whose body always returns: only after an exception too.
        if x.abs().max() > 1:
            return x / 2
        return x


class FailurePathOnly(nn.Module):
    def forward(self, x):
        if x.shape[0] > 1000:
            # A block that ends in `raise`: runs only when the input is already bad.
            sign = "positive" if x.sum() > 0 else "negative"
            raise ValueError(f"batch too large ({sign})")
        assert x.dim() == 2, "rank " + ("ok" if (x > 0).all() else "bad")
        return x + 1


class TorchHostPredicates(nn.Module):
    # torch annotates these `-> bool` (rules/data/return_types.toml): host values, Dynamo
    # evaluates them while tracing, no data-dependent jump.
    def forward(self, x):
        if torch.accelerator.is_available():
            x = x + 1
        if torch._jit_internal.is_scripting():
            x = x - 1
        if x.is_contiguous():
            x = x * 2
        return x


class ScalarOverridesTensorAttribute(nn.Module):
    """`self.limit` starts as a tensor but another method stores a Python float in it: unknown, so
    not reported (at runtime it is the float: a constant to Dynamo, no break)."""

    def __init__(self):
        super().__init__()
        self.limit = torch.ones(1)
        self.register_buffer("offset", None)
        self.set_limit(2.0)

    def set_limit(self, value):
        self.limit = value

    def forward(self, x):
        if self.limit > 1:
            x = x * 2
        if self.offset is not None:
            x = x + self.offset
        if self.training and self.limit > 0:
            x = x - 1
        return x


class ConstantMessageAsserts(nn.Module):
    """Tensor asserts with no message or a constant one: Dynamo emits torch._assert_async."""

    def forward(self, x):
        total = x.abs().sum()
        assert total >= 0
        assert total >= 0, "negative norm"
        return x + 1


class RewrittenTensorAsserts(nn.Module):
    """Tensor asserts whose last test is taken as it is: a negation written as a tensor (`~`),
    tensor tests combined with `&`, a host test before `and`, a negated host predicate."""

    def forward(self, x):
        loss = (x * x).mean()
        assert not torch.jit.is_scripting()
        assert ~torch.isnan(loss), "loss is nan"
        assert torch.isfinite(x).all() & (x.abs() < 1e6).all(), "bad input"
        assert x.dim() == 2 and torch.isfinite(loss), "bad loss"
        return loss * 2


def tracing_int(v):
    # A tensor only while tracing with torch.jit (False under torch.compile): an int here.
    return v.to(torch.int64) if torch.jit.is_tracing() else int(v)


def grid_side(x):
    return x.shape[0], x.shape[1]


class HostValuesThroughReturns(nn.Module):
    """Locals project functions return: ints from shapes, and an int from a helper whose tensor
    return sits behind `torch.jit.is_tracing()`."""

    def forward(self, x):
        h, w = grid_side(x)
        side = tracing_int(x.shape[0] ** 0.5)
        if h > w and side:
            return x * 2
        return x - 1


def grid_side_of(x):
    return grid_side(x)


class HostValuesThroughNestedReturns(nn.Module):
    """Ints a project function returns, handed on by another one's `return`."""

    def forward(self, x):
        h, w = grid_side_of(x)
        if h > w:
            return x * 2
        return x - 1


def count_positive(x):
    return (x > 0).sum()


class ComprehensionShadowsAReturnedLocal(nn.Module):
    """`n` holds a tensor a project function returned, but inside the comprehension `n` is its
    own name: an int of `sizes`."""

    def forward(self, x: torch.Tensor, sizes: list):
        n = count_positive(x)
        kept = [k for k, n in enumerate(sizes) if n > 1]
        return x[: len(kept)] * n


class FlagAnnotatedAsOptionalTensor(nn.Module):
    """An input annotated `Optional[Tensor]` whose default is `False`: the default says it is a
    flag, and callers pass bools."""

    def forward(self, x: torch.Tensor, return_scores: Optional[torch.Tensor] = False):
        if not return_scores:
            return x * 2
        return x, x.sum()


class AllOverHostValues(nn.Module):
    """`all()` / `any()` over a list of shape tests or over a shape: host values."""

    def forward(self, x):
        if all([x.dim() == 1, x.shape[0] > 1]) and any(x.shape):
            return x * 2
        return x


class TorchHelpersReturningHostValues(nn.Module):
    # A private torch helper reached through an alias: torch annotates
    # `torch.nn._reduction.get_enum(reduction: str) -> int`, so `mode` is a Python int. A torch
    # function outside the tables' namespaces is not assumed to return a tensor (this one is a bool).
    def forward(self, x, reduction="mean"):
        mode = F._Reduction.get_enum(reduction)
        if mode == 0:
            return x
        if torch.__future__.get_overwrite_module_params_on_conversion():
            return x * 2
        if mode == 1:
            return x.mean()
        return x.sum()


def train_step(model, x, y, optimizer, best_loss):
    # Training loop code: eager, so tensor branches here are fine for compile.
    loss = torch.nn.functional.mse_loss(model(x), y)
    if torch.isnan(loss):
        return best_loss
    loss.backward()
    optimizer.step()
    return loss.detach() if loss < best_loss else best_loss


def checked_repeat(x, times):
    # The only compiled call passes an int: the assert is on host values.
    assert times > 0, f"times {times}"
    return x * times


def run_checked_repeat():
    return torch.compile(checked_repeat)(torch.randn(4), 3)


def kept_by_flags(layers, keep: list):
    # The `if` clause tests Python bools: no tensor, no branch for Dynamo.
    return [layer for layer, k in zip(layers, keep) if k]


class FlaggedLayerStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])

    def forward(self, x):
        for layer in kept_by_flags(self.layers, [True, False, True]):
            x = layer(x)
        return x


def leading_size(x):
    # `x` is the caller's tensor until the unpacking rebinds it to an int: the branch tests a
    # Python int.
    x, rest = x.shape[0], x.shape[1:]
    if x > 1:
        return rest
    return None


def first_nonzero_size(sizes, x):
    # The loop rebinds the parameter `sizes` to each int of `x.shape`.
    for sizes in x.shape:
        if sizes > 0:
            return sizes
    return 0


class ParametersRebound(nn.Module):
    def forward(self, x: torch.Tensor):
        leading_size(x)
        return x * first_nonzero_size(x, x)


def cases():
    """Region code for the proofs: name -> (module, example args)."""
    x = torch.randn(2, 4, 8)
    mask = torch.zeros(8, 8, dtype=torch.bool)
    return {
        "comprehension_if_clause_on_python_bools": (FlaggedLayerStack(), (torch.randn(4, 8),)),
        "static_branches_train": (ShapeAwareBlock().train(), (x, mask, [torch.ones(8)])),
        "static_branches_eval": (ShapeAwareBlock().eval(), (x,)),
        "eager_only_check": (EagerOnlyCheck(), (torch.randn(4),)),
        "short_circuit_guard": (ShortCircuitGuard(), (torch.randn(4),)),
        "script_or_trace_only": (ScriptOrTraceOnly(), (torch.randn(4),)),
        "evaluated_predicate_guard": (EvaluatedPredicateGuard(), (torch.randn(4),)),
        "fallback_after_failure": (FallbackAfterFailure(), (torch.randn(4),)),
        "failure_path_only": (FailurePathOnly(), (torch.randn(2, 4),)),
        "torch_host_predicates": (TorchHostPredicates(), (torch.randn(4),)),
        "scalar_overrides_tensor_attribute": (ScalarOverridesTensorAttribute(), (torch.randn(4),)),
        "constant_message_asserts": (ConstantMessageAsserts(), (torch.randn(4),)),
        "rewritten_tensor_asserts": (RewrittenTensorAsserts(), (torch.randn(4, 8),)),
        "host_values_through_returns": (HostValuesThroughReturns(), (torch.randn(4, 8),)),
        "host_values_through_nested_returns": (HostValuesThroughNestedReturns(), (torch.randn(4, 8),)),
        "comprehension_shadows_a_returned_local": (
            ComprehensionShadowsAReturnedLocal(),
            (torch.randn(4, 8), [1, 2, 3]),
        ),
        "flag_annotated_optional_tensor": (FlagAnnotatedAsOptionalTensor(), (torch.randn(4, 8), False)),
        "assert_on_a_parameter_given_an_int": (checked_repeat, (torch.randn(4), 3)),
        "torch_helpers_returning_host_values": (TorchHelpersReturningHostValues(), (torch.randn(4),)),
        "all_over_host_values": (AllOverHostValues(), (torch.randn(4),)),
        "parameters_rebound_by_unpacking_and_loops": (ParametersRebound(), (torch.randn(4, 8),)),
    }
