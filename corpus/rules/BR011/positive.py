"""BR011 positives: calls to RNN / GRU / LSTM submodules in compiled regions.

Why: measured on torch 2.11 (backend="eager"): GB0014 "Attempted to wrap RNN, GRU, or LSTM";
the classes come from Dynamo's VariableBuilder.wrap_module (rules/data/unwrapped_modules.toml).
"""

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


def cases():
    """name -> (callable, args, expected GB codes)."""
    x = torch.randn(2, 3, 4)
    return {
        "lstm": (LstmEncoder(), (x,), {"GB0014"}),
        "gru_init_after_forward": (GruDecoder(), (x,), {"GB0014"}),
        "rnn": (PlainRnn(), (x,), {"GB0014"}),
    }
