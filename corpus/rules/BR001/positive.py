"""BR001 positives: Python control flow (`if` / `while` / ternary) on a tensor value in a compiled region.

Why: the condition needs the tensor's value on the host, so Dynamo stops the graph there
(torch 2.11: gb_type "Data-dependent branching", GB0170; explain() reason "generic_jump
TensorVariable()") and the device must sync to answer it. Use torch.where / torch.cond instead.
"""

import torch
import torch as T
from torch import nn


def rescale(x: torch.Tensor) -> torch.Tensor:
    # Helper called from NanSafeNorm.forward; `x` is annotated, so its reductions are tensors.
    scale = x.abs().amax()
    return x / scale if scale > 0 else x  # expect: BR001


class NanSafeNorm(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.isnan(x).any():  # expect: BR001
            x = torch.nan_to_num(x)
        return rescale(x)


class MaskedMean(nn.Module):
    def forward(self, x: torch.Tensor, threshold: float = 0.0) -> torch.Tensor:
        mask = x > threshold
        # `mask` is a local assigned from a tensor comparison; `.sum() == 0` is still a tensor.
        if mask.sum() == 0:  # expect: BR001
            return x.mean()
        return (x * mask).sum() / mask.sum()


@T.compile
def power_iteration(v: T.Tensor, tol: float = 1.0) -> T.Tensor:
    # Decorated through the `import torch as T` alias; a `while` on a tensor norm.
    while T.linalg.norm(v) > tol:  # expect: BR001
        v = v / 2
    return v


class HostGate(nn.Module):
    """`torch.tensor(python_float)` lives on the host: still a data-dependent break (generic_jump
    on torch 2.11), but no device sync — the message says so."""

    def __init__(self, p: float = 0.7):
        super().__init__()
        self.p = p

    def forward(self, x):
        gate = torch.tensor(self.p)
        if gate > 0.5:  # expect: BR001
            return x * 2
        return x


class NonFiniteGuard(nn.Module):
    def forward(self, x):
        # Two tensor operands in one test: one statement, one finding (at the first operand).
        if torch.isnan(x).any() or torch.isinf(x).any():  # expect: BR001
            return torch.nan_to_num(x)
        return x


class RefineLoop(nn.Module):
    """A data-dependent `if` inside a loop: Dynamo cannot resume mid-loop, so it skips the whole
    frame (torch 2.2 and 2.11: explain() finds 0 graphs) — worse than one break."""

    def forward(self, x):
        for _ in range(3):
            if x.abs().max() > 1:  # expect: BR001
                x = x / 2
        return x


class WhileRefine(nn.Module):
    def forward(self, x):
        steps = 0
        while steps < 3:
            steps += 1
            if x.sum() > 0:  # expect: BR001
                x = x - 1
        return x


class JoinedMask(nn.Module):
    """A local assigned on both branches: a device comparison on one, a host build on the other.
    Where the paths join it may be on the device, so the message claims no "no device sync"
    (the last assignment, `torch.ones`, is not what every path holds)."""

    def forward(self, x, exact: bool = True):
        if exact:
            mask = x > 0
        else:
            mask = torch.ones(x.shape[-1], dtype=torch.bool)
        if mask.any():  # expect: BR001
            return x * 2
        return x


class OverriddenMask(nn.Module):
    """Reassigned on one branch only: the path that skips it keeps the device comparison."""

    def forward(self, x, everything: bool = False):
        mask = x > 0
        if everything:
            mask = torch.ones(x.shape[-1], dtype=torch.bool)
        if mask.all():  # expect: BR001
            return x * 2
        return x


class TrainingLayerDrop(nn.Module):
    """transformers' LayerDrop: `skip = False`, then on one branch a host-built comparison. Every
    path leaves a host value (a Python bool or `torch.rand([]) < p`), so "no device sync" holds."""

    def forward(self, x):
        skip = False
        if self.training:
            skip = torch.rand([]) < 0.0
        if skip:  # expect: BR001
            return x
        return x * 2


class LaterIterationMask(nn.Module):
    """Built on the host before the loop, replaced by a device comparison at the end of the body:
    from the second iteration on the test reads a device value."""

    def forward(self, x):
        mask = torch.ones(x.shape[-1], dtype=torch.bool)
        for _ in range(3):
            if mask.any():  # expect: BR001
                x = x - 1
            mask = x > 0
        return x


# A predicate helper built from parts (evaluated, `model/eval.rs`): True under torch.compile,
# so the branch it guards is the compiled one.
_compiling_fn = getattr(torch.compiler, "is_compiling", None) or getattr(
    torch._dynamo, "is_compiling", None
)


def _compiling_evaluated():
    return bool(_compiling_fn()) if _compiling_fn is not None else False


class CompiledOnlyCheck(nn.Module):
    def forward(self, x):
        if _compiling_evaluated():
            if torch.isnan(x).any():  # expect: BR001
                x = torch.nan_to_num(x)
        return x + 1


class TwoRefineLoops(nn.Module):
    """Two data-dependent jumps in loops of one frame: Dynamo gives up on the frame at the first,
    so the second is never traced (0 graphs, no break reasons): one finding, naming the second."""

    def forward(self, x):
        for _ in range(2):
            if x.sum() > 0:  # expect: BR001
                x = x - 1
        for _ in range(2):
            if x.mean() > 0:
                x = x - 1
        return x


class LazyInitFlag(nn.Module):
    """A bool flag registered as a buffer: a tensor under Dynamo (torch 2.2-2.11, eval and train)."""

    def __init__(self, lazy=True):
        super().__init__()
        self.register_buffer("ready", torch.tensor(not lazy))
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        if self.ready:  # expect: BR001
            x = x * 2
        return self.proj(x)


class WeightedAuxLoss(nn.Module):
    """A loss weight held in a parameter, compared under `self.training` (breaks in train mode)."""

    def __init__(self):
        super().__init__()
        self.aux_weight = nn.Parameter(torch.tensor(0.5))

    def forward(self, x):
        loss = x.pow(2).mean()
        if self.training and self.aux_weight > 0:  # expect: BR001
            loss = loss + self.aux_weight * x.abs().mean()
        return loss


class StatsFromBase(nn.Module):
    def __init__(self):
        super().__init__()
        self.threshold = torch.zeros(1)


class ThresholdGate(StatsFromBase):
    """A plain tensor attribute set by a base class of the same file."""

    def forward(self, x):
        if self.threshold.sum() >= 0:  # expect: BR001
            x = x + 1
        return x


class BalancedMask(nn.Module):
    """An assert on a tensor with an f-string message: not rewritten to torch._assert_async."""

    def forward(self, x):
        counts = (x > 0).sum(dim=1)
        assert counts.max() >= counts.min(), f"{counts.max()} < {counts.min()}"  # expect: BR001
        return x * 2


class NanCheckedLoss(nn.Module):
    """`assert not <tensor>`: Python compiles the `not` into an inverted jump, which Dynamo does
    not recognize as an assert, so even a constant message leaves a data-dependent jump."""

    def forward(self, x):
        loss = (x * x).mean()
        assert not torch.isnan(loss), "loss is nan"  # expect: BR001
        return loss * 2


class FiniteAndBounded(nn.Module):
    """A tensor test before `and`: only the assert's last jump is rewritten."""

    def forward(self, x):
        assert torch.isfinite(x).all() and (x.abs() < 1e6).all(), "bad input"  # expect: BR001
        return x * 2


def positive_count(x):
    return (x > 0).sum()


class CountGate(nn.Module):
    """A tensor a project function returns (computed from the tensor this call passes), tested."""

    def forward(self, x):
        n = positive_count(x)
        if n:  # expect: BR001
            return x * 2
        return x


def positive_count_of(x):
    # Hands back what another project function returns, as it is.
    return positive_count(x)


def counted(x):
    n = positive_count_of(x)
    return n


class CountGateTwoCallsDeep(nn.Module):
    """A tensor handed back through the returns of three project functions, tested."""

    def forward(self, x):
        n = counted(x)
        if n:  # expect: BR001
            return x * 2
        return x


class RandomLayerSkip(nn.Module):
    """`all()` over a tensor of booleans reads each element: a data-dependent jump."""

    def forward(self, x):
        keep = torch.zeros(3).uniform_(0.0, 1.0) < 0.5  # `uniform_` returns a tensor (its annotation)
        if all(keep):  # expect: BR001
            return x * 2
        return x + 1 if any(x.flatten() > 10) else x  # expect: BR001


def loop_cases():
    """Branches inside loop bodies: the whole frame runs eagerly."""
    x = torch.randn(4, 8) * 4
    return {
        "if_in_for_loop": (RefineLoop(), (x,)),
        "if_in_while_loop": (WhileRefine(), (x,)),
        "mask_replaced_in_loop_body": (LaterIterationMask(), (x,)),
        "two_loops_in_one_frame": (TwoRefineLoops(), (x,)),
    }


def checked_scale(x, limit):
    # `limit` is a parameter: the compiled call below passes a 0-d tensor, and the computed
    # message keeps Dynamo from rewriting the assert into torch._assert_async.
    assert limit > 0, f"limit {limit}"  # expect: BR001
    return x * 2


def run_checked_scale():
    return torch.compile(checked_scale)(torch.randn(4), torch.tensor(3.0))


def kept_layers(layers, p: float):
    # A comprehension's `if` clause tests each element: here a 0-d tensor (a row of the computed
    # `drop`), so Dynamo breaks on it.
    drop = torch.rand(len(layers)) < p
    return [layer for layer, d in zip(layers, drop) if not d]  # expect: BR001


class LayerDropStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])

    def forward(self, x):
        for layer in kept_layers(self.layers, 0.5):
            x = layer(x)
        return x


def cases():
    """Entry points for the proofs: name -> (callable as written, example args)."""
    x = torch.randn(4, 8)
    return {
        "if_any_and_helper_ternary": (NanSafeNorm(), (x,)),
        "if_local_mask_sum": (MaskedMean(), (x,)),
        "while_norm": (power_iteration, (torch.full((8,), 3.0),)),
        "ternary_in_helper": (rescale, (x,)),
        "host_built_gate": (HostGate(), (x,)),
        "two_operands_one_statement": (NonFiniteGuard(), (x,)),
        "mask_joined_from_both_branches": (JoinedMask(), (x,)),
        "host_branch_of_joined_mask": (JoinedMask(), (x, False)),
        "mask_overridden_on_one_branch": (OverriddenMask(), (x,)),
        "layerdrop_host_values_on_every_path": (TrainingLayerDrop(), (x,)),
        "branch_under_evaluated_predicate": (CompiledOnlyCheck(), (x,)),
        "registered_bool_buffer": (LazyInitFlag(), (x,)),
        "parameter_weight_in_training": (WeightedAuxLoss().train(), (x,)),
        "tensor_attribute_of_base_class": (ThresholdGate(), (x,)),
        "assert_with_formatted_message": (BalancedMask(), (x,)),
        "assert_on_a_parameter_given_a_tensor": (checked_scale, (x, torch.tensor(3.0))),
        "assert_not_tensor_constant_message": (NanCheckedLoss(), (x,)),
        "assert_tensor_before_and": (FiniteAndBounded(), (x,)),
        "tensor_returned_by_a_project_function": (CountGate(), (x,)),
        "tensor_returned_through_nested_returns": (CountGateTwoCallsDeep(), (x,)),
        "all_and_any_over_a_tensor": (RandomLayerSkip(), (x,)),
    }


def comprehension_cases():
    """A break inside a comprehension (an inlined function on Python 3.11): torch < 2.8 words it
    as a break "from user code" at the comprehension rather than by its type."""
    return {"if_clause_on_tensor_elements": (LayerDropStack(), (torch.randn(4, 8),))}
