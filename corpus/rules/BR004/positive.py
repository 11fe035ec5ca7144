"""BR004 positives: Python side effects and untraceable library calls inside compiled regions.

Why: Dynamo cannot put these calls in a graph. Measured on torch 2.11 (backend="eager"): print
GB0059, logging.info GB0156, logger methods GB0291, warnings.warn / time.* / random.* / scipy.*
GB0007, copy.deepcopy GB0179.
"""

import contextlib
import copy
import logging
import random
import time
import warnings

import torch
from frame_logging import logger as log  # a logging library outside the project
from torch import nn

logger = logging.getLogger(__name__)


class LoggedBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        logger.info("block input %s", tuple(x.shape))  # expect: BR004
        return self.proj(x)


class LayerDrop(nn.Module):
    def __init__(self, p: float = 0.5):
        super().__init__()
        self.p = p
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        if self.training and random.random() < self.p:  # expect: BR004
            return x
        return self.proj(x)


@torch.compile
def timed_step(x: torch.Tensor) -> torch.Tensor:
    start = time.perf_counter()  # expect: BR004
    y = x.sin()
    print("step took", time.perf_counter() - start)  # expect: BR004
    return y


@torch.compile
def warn_on_large(x: torch.Tensor) -> torch.Tensor:
    if x.shape[0] > 2:
        warnings.warn("large batch")  # expect: BR004
    logging.debug("done")  # expect: BR004
    return x * 2


@torch.compile
def snapshot(x: torch.Tensor) -> torch.Tensor:
    saved = copy.deepcopy(x)  # expect: BR004
    return saved + x


class HungarianMatcher(nn.Module):
    def forward(self, cost: torch.Tensor):
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(cost.detach())  # expect: BR004
        return torch.as_tensor(rows), torch.as_tensor(cols)


class LossSelector(nn.Module):
    """A warning about a normal situation stays flagged: an unknown config value falls back to a
    default on every call (transformers' `loss_function`: "`loss_type=...` was set in the config but
    it is unrecognized. Using the default loss"), so the branch is traced."""

    def __init__(self, loss_type=None):
        super().__init__()
        self.loss_type = loss_type

    def forward(self, x):
        if self.loss_type is None or self.loss_type not in ("mse", "l1"):
            logger.warning(  # expect: BR004
                f"`loss_type={self.loss_type}` was set in the config but it is unrecognized. "
                "Using the default loss: `mse`."
            )
        return (x * x).mean()


CHANGED_LOSS = "Version 2 computes the loss inside the model; you may observe training discrepancies."


class TrainingLoss(nn.Module):
    """A FutureWarning about changed behaviour on the normal training path (labels given) is not a
    misuse branch: the category alone does not make it one, only the text would."""

    def forward(self, x, labels=None):
        if labels is not None:
            warnings.warn(CHANGED_LOSS, FutureWarning)  # expect: BR004
            return ((x - labels) ** 2).mean()
        return x.mean()


class ForeignLoggedBlock(nn.Module):
    """A logger imported from outside the project and the standard library is no `logging.Logger`:
    Dynamo traces into its code, which here reads the caller's frame (GB0007), not GB0291."""

    def forward(self, x):
        log.warning("block input %s", tuple(x.shape))  # expect: BR004
        return x * 2


@torch.compile
def quiet_step(x: torch.Tensor) -> torch.Tensor:
    # Changing the warning filters calls the C builtin `_warnings._filters_mutated`, which Dynamo
    # skips (torch 2.11 GB0007; 2.8 breaks on the filter-list mutation, GB0156).
    y = x + 1
    warnings.simplefilter("ignore")  # expect: BR004
    return y * 2


last_hook_handle = None


def double_grad(grad):
    return grad * 2


@torch.compile
def hooked_step(x):
    # A tensor hook's handle stored in a global: Dynamo cannot keep it outside the graph
    # (torch 2.11 and 2.8: GB0100 "Storing Tensor hook handle in globals"; 2.5: "Storing handles
    # in globals - NYI") and gives up on the whole frame: 0 graphs (tests/python/
    # test_marker_proofs.py; not in `cases()`, whose proofs count graph breaks).
    global last_hook_handle
    last_hook_handle = x.register_hook(double_grad)  # expect: BR004
    return x * 2


def cases():
    """Entry points for the proofs: name -> (callable as written, example args, expected GB codes)."""
    x = torch.randn(4, 8)
    version = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
    result = {
        "logger_info": (LoggedBlock(), (x,), {"GB0291"}),
        "foreign_logger": (ForeignLoggedBlock(), (x,), {"GB0007"}),
        "random_random_layerdrop": (LayerDrop().train(), (x,), {"GB0007"}),
        "time_and_print": (timed_step, (x,), {"GB0007", "GB0059"}),
        "warnings_and_logging": (warn_on_large, (x,), {"GB0007", "GB0156"}),
        "deepcopy": (snapshot, (x,), {"GB0179"}),
        "warnings_filter_change": (quiet_step, (x,), {"GB0007"} if version >= (2, 11) else {"GB0156"}),
        "unrecognized_config_fallback": (LossSelector(), (x,), {"GB0291"}),
        "future_warning_on_training_path": (TrainingLoss(), (x, torch.zeros(4, 8)), {"GB0007"}),
    }
    try:
        import scipy.optimize  # noqa: F401
    except ImportError:
        return result
    result["scipy_matcher"] = (HungarianMatcher(), (torch.rand(3, 3),), {"GB0007"})
    return result


# A break Dynamo cannot resume from — inside a loop body or a `try` body — makes it skip the
# whole frame (torch 2.2–2.11: 0 graphs, no break reasons): the first one is the finding, and the
# later breaks of the frame are never traced, so they are folded into it (`scan/merge.rs`).
class NoisyRefine(nn.Module):
    def forward(self, x):
        for step in range(2):
            print("refine step", step)  # expect: BR004
            x = x * 0.5
        logger.info("refined %s", tuple(x.shape))
        return x


@torch.compile
def guarded_report(x: torch.Tensor) -> torch.Tensor:
    try:
        print("norm", x.shape)  # expect: BR004
    except ValueError:
        pass
    y = x + 1
    logger.info("done")
    return y


class MaybeNoisyRefine(nn.Module):
    """The loop runs only when `verbose`: the break after it is real on the other path."""

    def __init__(self, verbose=False):
        super().__init__()
        self.verbose = verbose

    def forward(self, x):
        if self.verbose:
            for step in range(2):
                print("refine step", step)  # expect: BR004
        x = x * 0.5
        logger.info("refined %s", tuple(x.shape))  # expect: BR004
        return x


# A break in a *callee* called inside the caller's loop or `try` body happens at the call, in
# the caller's frame: Dynamo skips the caller's frame there (torch 2.2–2.11: the callee is
# compiled as a frame of its own and breaks; the caller's later breaks give no break reason).
# The callee's break is the finding; the caller's later hazards fold into it. A break before
# the loop stays (the loop runs in its resume function); a callee that breaks only on some
# Python value does not skip the frame when it does not.
def report_scale(x):
    x = x * 0.5
    print("scale", x.shape)  # expect: BR004
    return x


def report_twice(x):
    return report_scale(x) + 1


class StepwiseRefine(nn.Module):
    def forward(self, x):
        x = x + 1
        logger.info("refining %s", tuple(x.shape))  # expect: BR004
        for _ in range(2):
            x = report_scale(x)
        x = x + 1
        logger.info("refined %s", tuple(x.shape))
        return x


class ChainedRefine(nn.Module):
    def forward(self, x):
        try:
            x = report_twice(x)
        except ValueError:
            pass
        x = x + 1
        logger.info("refined %s", tuple(x.shape))
        return x


def report_wide(x):
    x = x * 0.5
    if x.dim() > 2:
        print("wide", x.shape)  # expect: BR004
    return x


class MaybeStepwiseRefine(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = report_wide(x)
        x = x + 1
        logger.info("refined %s", tuple(x.shape))  # expect: BR004
        return x


# A callee whose break sits at the top level of its own loop's body (no branch around it) breaks
# on every call that enters the loop: called in the caller's loop, it skips the caller's frame.
def report_each_step(x, steps):
    for step in range(steps):
        print("step", step)  # expect: BR004
        x = x * 0.5
    return x


class LoopingStepRefine(nn.Module):
    def forward(self, x):
        x = x + 1
        logger.info("refining %s", tuple(x.shape))  # expect: BR004
        for _ in range(2):
            x = report_each_step(x, 2)
        x = x + 1
        logger.info("refined %s", tuple(x.shape))
        return x


# A break under a project context manager (a class with `__enter__`/`__exit__`, a
# `@contextlib.contextmanager` function) cannot resume either: Dynamo traces it as a generic
# context manager and skips the whole frame (torch 2.2-2.11), so the later logger call is never
# traced. Under torch's own context managers (`torch.no_grad()`) the break resumes and the later
# call is a break of its own.
class TimingScope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@contextlib.contextmanager
def timing_scope():
    yield


class ScopedRefine(nn.Module):
    def forward(self, x):
        with TimingScope():
            print("refine", x.shape)  # expect: BR004
            x = x * 0.5
        logger.info("refined %s", tuple(x.shape))
        return x


class GeneratorScopedRefine(nn.Module):
    def forward(self, x):
        with timing_scope():
            print("refine", x.shape)  # expect: BR004
        x = x * 0.5
        logger.info("refined %s", tuple(x.shape))
        return x


class NoGradRefine(nn.Module):
    def forward(self, x):
        with torch.no_grad():
            print("refine", x.shape)  # expect: BR004
        x = x * 0.5
        logger.info("refined %s", tuple(x.shape))  # expect: BR004
        return x


# The standard library's context managers are generic ones to Dynamo too (torch 2.11): a break
# under `contextlib.suppress(...)` or `warnings.catch_warnings()` skips the whole frame, so the
# later logger call is never traced. `contextlib.nullcontext()` is the one Dynamo models: the
# break under it resumes and the later call breaks on its own.
class SuppressedRefine(nn.Module):
    def forward(self, x):
        with contextlib.suppress(ValueError):
            print("refine", x.shape)  # expect: BR004
        x = x * 0.5
        logger.info("refined %s", tuple(x.shape))
        return x


class WarningScopedRefine(nn.Module):
    def forward(self, x):
        with warnings.catch_warnings():
            print("refine", x.shape)  # expect: BR004
        x = x * 0.5
        logger.info("refined %s", tuple(x.shape))
        return x


class NullScopedRefine(nn.Module):
    def forward(self, x):
        with contextlib.nullcontext():
            print("refine", x.shape)  # expect: BR004
        x = x * 0.5
        logger.info("refined %s", tuple(x.shape))  # expect: BR004
        return x


class ScopedStepRefine(nn.Module):
    """A callee that always breaks, called under a project context manager."""

    def forward(self, x):
        with TimingScope():
            x = report_scale(x)
        x = x + 1
        logger.info("refined %s", tuple(x.shape))
        return x


# A callee's break after an early return: when the return's test is a tensor value, the test
# itself breaks on every call (it is the callee's certain break, before the return), so the
# caller's frame is skipped; when it is a Python value the caller passes (`quick=True`), Dynamo
# specializes on it, returns early and never reaches the break: the caller's later call is real.
def settle(x):
    if x.sum() > 0:  # expect: BR001
        return x
    print("negative", x.shape)  # expect: BR004
    return -x


def settle_quick(x, quick):
    x = x * 0.5
    if quick:
        return x
    print("slow", x.shape)  # expect: BR004
    return -x


class SettleRefine(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = settle(x)
        logger.info("refined %s", tuple(x.shape))
        return x


class QuickSettleRefine(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = settle_quick(x, True)
        logger.info("refined %s", tuple(x.shape))  # expect: BR004
        return x


def callee_skip_cases():
    """name -> (caller, args, caller function name, whether the caller's frame is skipped)."""
    x = torch.randn(4, 8)
    return {
        "callee_breaks_in_loop": (StepwiseRefine(), (x,), "forward", True),
        "callee_chain_breaks_in_try": (ChainedRefine(), (x,), "forward", True),
        "callee_breaks_only_on_wide_input": (MaybeStepwiseRefine(), (x,), "forward", False),
        "callee_breaks_in_its_own_loop": (LoopingStepRefine(), (x,), "forward", True),
        "callee_breaks_under_project_context_manager": (ScopedStepRefine(), (x,), "forward", True),
        "callee_early_return_on_a_tensor_test": (SettleRefine(), (x,), "forward", True),
        "callee_early_return_on_a_python_value": (QuickSettleRefine(), (x,), "forward", False),
    }


def frame_skip_cases():
    """name -> (callable, args, whether Dynamo skips the whole frame)."""
    x = torch.randn(4, 8)
    return {
        "print_in_loop_then_logger": (NoisyRefine(), (x,), True),
        "print_in_try_then_logger": (guarded_report, (x,), True),
        "loop_not_taken_then_logger": (MaybeNoisyRefine(), (x,), False),
    }


def context_manager_skip_cases():
    """name -> (module, args, whether the break under the `with` skips the frame)."""
    x = torch.randn(4, 8)
    return {
        "print_under_project_class": (ScopedRefine(), (x,), True),
        "print_under_contextmanager_function": (GeneratorScopedRefine(), (x,), True),
        "print_under_no_grad": (NoGradRefine(), (x,), False),
        "print_under_stdlib_suppress": (SuppressedRefine(), (x,), True),
        "print_under_stdlib_catch_warnings": (WarningScopedRefine(), (x,), True),
        "print_under_nullcontext": (NullScopedRefine(), (x,), False),
    }
