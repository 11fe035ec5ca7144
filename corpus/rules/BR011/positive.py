"""BR011 positives: calls to RNN / GRU / LSTM submodules in compiled regions.

Why: measured on torch 2.11 (backend="eager"): GB0014 "Attempted to wrap RNN, GRU, or LSTM";
the classes come from Dynamo's VariableBuilder.wrap_module (rules/data/unwrapped_modules.toml).
"""

from abc import ABC, abstractmethod

import torch
from torch import nn
from torch.nn import GRU


class LstmEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 8, batch_first=True)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        out, _ = self.rnn(x)  # expect: BR011
        return self.head(out)


class GruDecoder(nn.Module):
    # forward before __init__: the attribute's class is known once the class is walked.
    def forward(self, x):
        out, _ = self.gru(x)  # expect: BR011
        return out.relu()

    def __init__(self):
        super().__init__()
        self.gru = GRU(4, 8, batch_first=True)


class PlainRnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.nn.RNN(4, 4, batch_first=True)

    def forward(self, x):
        return self.cell(x)[0] + 1  # expect: BR011


class GuardedFlatten(nn.Module):
    """Reading the module in a `try` (a method call): Dynamo gives up on the frame there, so the
    call after it is never traced — one finding, naming the later line."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 8, batch_first=True)

    def forward(self, x):
        try:
            self.rnn.flatten_parameters()  # expect: BR011
        except RuntimeError:
            pass
        out, _ = self.rnn(x)
        return out


class ProjectLstm(nn.LSTM):
    """A project class deriving from torch's LSTM: Dynamo's test is `isinstance`."""

    def forward(self, x, hx=None):
        return super().forward(x, hx)  # expect: BR011


class ProjectGru(nn.GRU):
    pass


class SubclassedRnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = ProjectLstm(4, 8, batch_first=True)

    def forward(self, x):
        x = x * 2
        return self.rnn(x)[0]  # expect: BR011


def pick_recurrent(kind):
    return ProjectLstm if kind == "lstm" else ProjectGru


class PickedRnn(nn.Module):
    """Every class the helper can return is a recurrent module."""

    def __init__(self, kind="gru"):
        super().__init__()
        self.rnn = pick_recurrent(kind)(input_size=4, hidden_size=8, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]  # expect: BR011


class RnnAttributeRead(nn.Module):
    """Reading a plain attribute of the module wraps it too."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 8, batch_first=True)

    def forward(self, x):
        x = x * 2
        return x.new_zeros(self.rnn.hidden_size) + x.sum()  # expect: BR011


class RnnWeightsRead(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 8, batch_first=True)

    def forward(self, x):
        return x * len(self.rnn.all_weights)  # expect: BR011


class ScaledLstm(nn.LSTM):
    """`super().forward()` runs torch's LSTM forward on `self`: Dynamo gives up on the frame there,
    so the later print is never traced (one cause, one finding)."""

    def forward(self, x, hx=None):
        x = x * 2
        out, state = super().forward(x, hx)  # expect: BR011
        print("lstm out", out.shape)
        return out, state


class RecurrentMixin(ABC, nn.RNNBase):
    """Abstract (an ABC with an abstract method): Python builds no instance of it, only of its
    subclasses, each a torch LSTM here, so `super().forward()` runs the LSTM forward on `self`."""

    @abstractmethod
    def scale(self) -> float: ...

    def forward(self, x, hx=None):
        out, state = super().forward(x * self.scale(), hx)  # expect: BR011
        print("mixin out", out.shape)
        return out, state


class MixedLstm(RecurrentMixin, nn.LSTM):
    def scale(self):
        return 2.0


def cases():
    """name -> (callable, args, expected GB codes)."""
    x = torch.randn(2, 3, 4)
    return {
        "lstm": (LstmEncoder(), (x,), {"GB0014"}),
        "gru_init_after_forward": (GruDecoder(), (x,), {"GB0014"}),
        "rnn": (PlainRnn(), (x,), {"GB0014"}),
        "method_in_try": (GuardedFlatten(), (x,), {"GB0014"}),
        "project_subclass": (SubclassedRnn(), (x,), {"GB0014"}),
        "picked_by_helper": (PickedRnn(), (x,), {"GB0014"}),
        "attribute_read": (RnnAttributeRead(), (x,), {"GB0014"}),
        "all_weights_read": (RnnWeightsRead(), (x,), {"GB0014"}),
        "super_forward": (ScaledLstm(4, 8, batch_first=True), (x,), {"GB0014"}),
        "abstract_mixin_super_forward": (MixedLstm(4, 8, batch_first=True), (x,), {"GB0014"}),
    }
