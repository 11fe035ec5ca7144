"""Runtime proofs for argument context at the defaults (src/semantic/context.rs,
src/semantic/options.rs): in corpus/reach/default_context each `# gated` line breaks under Dynamo
only when a value no call in the tree passes is given (an option or argument off its default),
each `# normal` line with the defaults too, and each `# never` line with no call the tree makes
(CPU, backend="eager" through torch._dynamo.explain). tests/default_context.rs expects scan to
put the same lines in the same tiers.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import torch
import torch._dynamo

FIXTURE = Path(__file__).resolve().parents[2] / "corpus" / "reach" / "default_context"


def marked(module: str, tag: str) -> set[int]:
    source = (FIXTURE / "pkg" / f"{module}.py").read_text()
    return {number for number, line in enumerate(source.splitlines(), start=1) if f"# {tag}:" in line}


def break_lines(module: str, call) -> set[int]:
    torch._dynamo.reset()
    torch.manual_seed(2)
    explanation = torch._dynamo.explain(call)(torch.randn(2, 4))
    path = FIXTURE / "pkg" / f"{module}.py"
    return {
        frame.lineno
        for reason in explanation.break_reasons
        for frame in reason.user_stack
        if Path(frame.filename) == path
    }


def load(module: str):
    sys.path.insert(0, str(FIXTURE))
    try:
        return importlib.import_module(f"pkg.{module}")
    finally:
        sys.path.remove(str(FIXTURE))


def test_numeric_options_break_only_off_their_defaults():
    numeric = load("numeric")
    gated, normal = marked("numeric", "gated"), marked("numeric", "normal")
    assert len(gated) == 3 and len(normal) == 1
    at_defaults = break_lines("numeric", numeric.Dropper(4))
    assert not (gated & at_defaults), sorted(gated & at_defaults)
    assert normal <= at_defaults, sorted(at_defaults)
    with_options = break_lines("numeric", numeric.Dropper(4, prob=0.1, warmup=2, scale=0.5))
    assert gated <= with_options, sorted(with_options)


def test_arguments_through_super_call_and_stored_callables_break_only_when_passed():
    chains = load("chains")
    never, gated, normal = marked("chains", "never"), marked("chains", "gated"), marked("chains", "normal")
    assert len(never) == 3 and not gated and len(normal) == 1
    # The calls as the tree writes them: none of the gated or never lines breaks.
    as_written = (
        break_lines("chains", chains.Doubled())
        | break_lines("chains", chains.WorkerNet())
        | break_lines("chains", chains.HookNet())
    )
    assert not ((never | gated) & as_written), sorted(as_written)
    assert normal <= as_written, sorted(as_written)
    # The values no call here passes: each line breaks.
    worker = chains.Worker()
    passed = (
        break_lines("chains", lambda x: chains.Clipped()(x, clip=True))
        | break_lines("chains", lambda x: worker(x, opt=True))
        | break_lines("chains", chains.HookNet(fn=lambda x: chains.hook(x, strict=True)))
    )
    assert (never | gated) <= passed, sorted(passed)


def test_a_base_option_forwarded_by_subclasses_breaks_only_when_set():
    inherited = load("inherited")
    gated = marked("inherited", "gated")
    assert len(gated) == 1
    at_defaults = break_lines("inherited", inherited.PositionalGate(4)) | break_lines(
        "inherited", inherited.RenamedGate(4)
    )
    assert not (gated & at_defaults), sorted(at_defaults)
    assert gated <= break_lines("inherited", inherited.PositionalGate(4, True))
    assert gated <= break_lines("inherited", inherited.RenamedGate(4, use_flag=True))


def test_an_option_through_a_factory_breaks_only_when_the_factory_sets_it():
    factories = load("factories")
    gated = marked("factories", "gated")
    assert len(gated) == 2
    at_defaults = break_lines("factories", factories.FactoryNet(4))
    assert not (gated & at_defaults), sorted(at_defaults)
    net = factories.FactoryNet(4)
    net.branch = factories.make_branch(4, drop=0.1)
    factories.add_scaled(net, 4, 0.5)
    assert gated <= break_lines("factories", net)


def test_a_setting_breaks_only_when_changed():
    settings = load("settings")
    gated, normal = marked("settings", "gated"), marked("settings", "normal")
    assert len(gated) == 4 and len(normal) == 2
    at_defaults = break_lines("settings", settings.SettingNet(4))
    assert not ((gated | normal) & at_defaults), sorted(at_defaults)
    settings.FAST_PATH, settings.LEVEL, settings.Switch.strict = True, 1, True
    settings.enable_rebound()
    settings.Toggled.turn_on()
    net = settings.SettingNet(4)
    try:
        changed = break_lines("settings", lambda x: settings.run_flipped(net, x))
    finally:
        settings.FAST_PATH, settings.LEVEL, settings.Switch.strict = False, 0, False
        settings._REBOUND, settings.Toggled.enabled = False, False
    assert (gated | normal) <= changed, sorted(changed)


def test_an_option_passed_as_an_argument_breaks_in_the_callee_only_when_set():
    option_args = load("option_args")
    gated, normal = marked("option_args", "gated"), marked("option_args", "normal")
    assert len(gated) == 3 and len(normal) == 2
    at_defaults = break_lines(
        "option_args",
        lambda x: option_args.Selector()(x)
        + option_args.Sampler()(x)
        + option_args.Literal()(x)
        + option_args.Checked()(x),
    )
    assert not (gated & at_defaults), sorted(gated & at_defaults)
    assert normal <= at_defaults, sorted(at_defaults)
    with_options = break_lines(
        "option_args",
        lambda x: option_args.Selector(min_score=0.1)(x)
        + option_args.Sampler("multinomial")(x)
        + option_args.Checked(clip=0.5)(x),
    )
    assert gated <= with_options, sorted(with_options)
