"""TS001 negatives: tests that run the real torch.compile, a spy that still calls it
(`wraps=torch.compile`), and patches of other things. Nothing here may be reported."""

from unittest import mock

import torch
from torch import nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def build_model(model_factory, compile_model=True, backend="eager"):
    model = model_factory()
    return torch.compile(model, backend=backend) if compile_model else model


def test_compiled_matches_eager(model_factory=TinyNet):
    # Real compile: a model that fails under Dynamo fails this test.
    torch.manual_seed(0)
    model = build_model(model_factory, compile_model=False)
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(3, 4)
    torch.testing.assert_close(compiled(x), model(x))


def test_compile_called_once(model_factory=TinyNet):
    # A spy: records the call but still runs the real torch.compile.
    with mock.patch.object(torch, "compile", wraps=torch.compile) as spy:
        model = build_model(model_factory)
        model(torch.randn(3, 4))
    spy.assert_called_once()


def test_cpu_path(monkeypatch, model_factory=TinyNet):
    # Patching other torch functions is fine: torch.compile itself stays real.
    monkeypatch.setattr(torch, "set_float32_matmul_precision", lambda precision: None)
    with mock.patch("torch.cuda.is_available", return_value=False):
        # Dynamo config goes through its own patch() (pytest's monkeypatch.setattr on
        # torch._dynamo.config deletes the entry on undo, measured on torch 2.11).
        with torch._dynamo.config.patch(cache_size_limit=1):
            model = build_model(model_factory)
            out = model(torch.randn(3, 4))
    assert out.shape == (3, 2)


def force_fullgraph_in_tests():
    # A wrapper that still compiles (the saved original is called): not a fake.
    original_compile = torch.compile

    def patched(*args, **kwargs):
        kwargs["fullgraph"] = True
        return original_compile(*args, **kwargs)

    torch.compile = patched
    return original_compile
