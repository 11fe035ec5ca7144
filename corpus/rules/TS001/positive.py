"""TS001 positives: tests that replace torch.compile with an identity function or a mock.

Why: the code under test then never compiles, so the test passes even for a model that crashes
under torch.compile (the proof runs these tests with a CR001-crashing model: they still pass).
It asserts the call, never the compilation. The tests take `model_factory` with a default so
pytest runs them unchanged and the proof can hand in another model.
"""

from unittest import mock
from unittest.mock import patch

import torch
from torch import nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def build_model(model_factory, compile_model=True):
    model = model_factory()
    return torch.compile(model) if compile_model else model


@mock.patch("torch.compile", side_effect=lambda m, **_: m)  # expect: TS001
def test_build_model_compiles(compile_mock, model_factory=TinyNet):
    model = build_model(model_factory)
    assert model(torch.randn(3, 4)).shape[0] == 3
    compile_mock.assert_called_once()


def test_build_model_with_patch_object(model_factory=TinyNet):
    with patch.object(torch, "compile", lambda m, **kwargs: m):  # expect: TS001
        model = build_model(model_factory)
    assert model(torch.randn(3, 4)).shape[0] == 3


def test_build_model_monkeypatched(monkeypatch, model_factory=TinyNet):
    monkeypatch.setattr(torch, "compile", lambda model, **kwargs: model)  # expect: TS001
    model = build_model(model_factory)
    assert model(torch.randn(3, 4)).shape[0] == 3


def test_build_model_monkeypatched_by_name(monkeypatch, model_factory=TinyNet):
    compile_mock = mock.MagicMock(side_effect=lambda model, **kwargs: model)
    monkeypatch.setattr("torch.compile", compile_mock)  # expect: TS001
    build_model(model_factory)
    assert compile_mock.called
