"""The run's parity phase (a mixin of Run): the reference step, comparable RNG, the comparison."""

import contextlib

from .parity import (
    PARITY_ENTRY_LIMIT,
    ParityCheck,
    default_tolerances,
    floating_cast_to,
    modules_cast_to,
    one_sided_zero_grads,
    reset_seeds,
    runs_below_float32,
    summarize_grad_parity,
    to_cpu,
)
from .records import first_line


class ParityPhases:
    """Run's parity methods (run.py holds the rest of the run)."""

    # -- parity (float64 reference, comparable RNG, eager's own error as the yardstick)

    def parity_reference(self, case, stepper):
        """The reference compiled and eager results are both judged against (eager's own error is the
        yardstick): the checked step in float64 (modules and inputs cast, no autocast), from the same state
        and seeds as eager. A model that cannot run in float64 (it hard-codes float32 somewhere: "expected
        scalar type Double but found Float") gets the same step in float32 with autocast off (a bf16/fp16
        model upcast) when eager ran below float32: still more precise than eager, so the same ratio rule
        holds. Stored as self.reference = (outputs, loss, grads) on the CPU; None when eager ran in
        float32 already and float64 failed (eager is then the only reference: allclose decides).
        `parity_reference` names the reference, `parity_reference_failed` why each better one failed."""
        torch = self.torch
        self.reference = None
        failed = {}
        used = "eager"
        for name in ("float64", "float32"):
            if name == "float32" and not runs_below_float32(torch, case, stepper):
                failed["float32"] = "eager itself ran in float32: not a more precise reference"
                break
            try:
                self.reference = self.reference_step(case, stepper, getattr(torch, name))
                used = name
                break
            except Exception as error:  # noqa: BLE001 - a model that cannot run in a dtype is a fact, not a failure
                failed[name] = "%s: %s" % (type(error).__name__, first_line(error)[:200])
        self.result["parity_reference"] = used
        self.result["parity_reference_failed"] = failed or None
        if "float64" in failed:
            self.note(
                "no float64 reference (%s): parity is judged against %s" % (
                    failed["float64"],
                    "a float32 run with autocast off" if used == "float32"
                    else "eager alone (eager vs compiled must be allclose)",
                )
            )

    def reference_step(self, case, stepper, dtype):
        """The checked step with modules and inputs cast to `dtype` and no autocast; (outputs, loss,
        grads) on the CPU. Raises what the model raises in that dtype."""
        torch = self.torch
        model, args, kwargs = case["model"], case["args"], case["kwargs"]
        cast_args, cast_kwargs = floating_cast_to(torch, args, dtype), floating_cast_to(torch, kwargs, dtype)
        try:
            self.initial_state.restore()
            with modules_cast_to(torch, stepper.modules, dtype):
                stepper.reference_run = True
                try:
                    reset_seeds(torch)
                    outputs, loss = stepper.step(model, cast_args, cast_kwargs)
                    grads = stepper.grads(cast_args, cast_kwargs) if stepper.training else {}
                    return to_cpu(torch, (outputs, loss, grads))
                finally:
                    stepper.reference_run = False
                    stepper.zero_grads(cast_args, cast_kwargs)
        finally:
            self.initial_state.restore()

    @contextlib.contextmanager
    def comparable_rng(self, effective):
        """A step that draws random numbers (dropout) gets torch._inductor.config.fallback_random=True for
        its compile, as PyTorch's benchmark runner does for accuracy checks: Inductor then calls the same
        RNG ops as eager, so a seeded compiled step draws the same numbers. It is set at compile time and
        stays for the timed steps (one compile, not two); the note says so."""
        config = None
        if self.result.get("step_uses_rng") and effective.get("backend") == "inductor":
            try:
                import torch._inductor.config as config  # noqa: PLC0415
            except Exception:  # noqa: BLE001
                config = None
        if config is None or not hasattr(config, "fallback_random"):
            self.result["fallback_random"] = False if self.result.get("step_uses_rng") else None
            yield
            return
        previous = config.fallback_random
        config.fallback_random = True
        self.result["fallback_random"] = True
        self.note(
            "the step draws random numbers (dropout, rand): compiled with "
            "torch._inductor.config.fallback_random=True so eager and compiled draw the same ones "
            "(also for the timed steps: Inductor's own RNG kernels were not timed)"
        )
        try:
            yield
        finally:
            config.fallback_random = previous

    def compare(
        self, case, stepper, eager_reference, eager_grads, compiled_outputs, compiled_loss, args, kwargs,
        compiled_grads=None,
    ):
        """`compiled_grads`: the compiled step's gradients when captured already (CPU), else read now."""
        torch = self.torch
        result = self.result
        expected_outputs, expected_loss = eager_reference
        atol, rtol = default_tolerances(torch, expected_outputs, stepper.autocast_dtype)
        if case.get("atol") is not None:
            atol = float(case["atol"])
        if case.get("rtol") is not None:
            rtol = float(case["rtol"])
        result["atol"], result["rtol"] = atol, rtol
        reference = self.reference
        reference_outputs, reference_loss, reference_grads = reference if reference is not None else (None, None, None)
        reference_name = result.get("parity_reference") or "eager"
        low_precision = stepper.autocast_dtype in (torch.float16, torch.bfloat16)
        check = ParityCheck(torch, atol, rtol, low_precision, reference_name)
        check.walk("output", expected_outputs, to_cpu(torch, compiled_outputs), reference_outputs)
        if expected_loss is not None:
            check.walk("loss", expected_loss, to_cpu(torch, compiled_loss), reference_loss)
        result["max_abs_diff"] = check.max_abs
        result["max_rel_diff"] = check.max_rel
        result["parity_outputs"] = check.entries[:PARITY_ENTRY_LIMIT]
        if len(check.entries) > PARITY_ENTRY_LIMIT:
            self.note("parity: %d outputs compared, the first %d listed" % (len(check.entries), PARITY_ENTRY_LIMIT))
        parity_ok = check.ok
        problems = list(check.problems())
        if stepper.training:
            if compiled_grads is None:
                compiled_grads = to_cpu(torch, stepper.grads(args, kwargs))
            grad_check = ParityCheck(torch, atol, rtol, low_precision, reference_name)
            none_vs_zero = one_sided_zero_grads(torch, eager_grads, compiled_grads)
            non_zero_one_sided = sorted(set(eager_grads) ^ set(compiled_grads) - set(none_vs_zero))
            if non_zero_one_sided:
                grad_check.mismatch("grad", "eager has gradients for %d tensors, compiled for %d (%d non-zero on one "
                                    "side only, e.g. %s)" % (len(eager_grads), len(compiled_grads),
                                                             len(non_zero_one_sided), non_zero_one_sided[0]))
            for name in sorted(set(eager_grads) & set(compiled_grads)):
                grad_reference = reference_grads.get(name) if isinstance(reference_grads, dict) else None
                grad_check.walk("grad[%s]" % name, eager_grads[name], compiled_grads[name], grad_reference)
            summary = summarize_grad_parity(grad_check, len(none_vs_zero))
            result["parity_grads"] = summary
            # None, not 0.0, when nothing was compared: 0.0 would claim identical gradients.
            result["grad_max_abs_diff"] = summary["max_abs_diff"] if summary["compared"] else None
            if not eager_grads:
                self.note("training case without gradients to compare: no parameter requiring grad was "
                          "found in the model (or the modules its callable uses) nor among the inputs")
            parity_ok = parity_ok and grad_check.ok
            problems.extend(grad_check.problems())
        metric_function = case.get("metric")
        if metric_function is not None and result["metric_eager"] is not None:
            metric_compiled = float(metric_function(compiled_outputs))
            result["metric_compiled"] = metric_compiled
            difference = abs(metric_compiled - result["metric_eager"])
            if not difference <= atol + rtol * abs(result["metric_eager"]):
                parity_ok = False
                problems.append("metric: %r vs %r" % (result["metric_eager"], metric_compiled))
        result["parity_ok"] = parity_ok
        for problem in problems[:5]:
            self.note("parity: " + problem)
