import torch

from .ops import OPS


class Net(torch.nn.Module):
    def __init__(self, kind="scale", extra="rotate"):
        super().__init__()
        self.kind = kind
        self.extra = extra

    def _get_op(self, name):
        return getattr(self, "_op_" + name)

    def forward(self, x):
        op = OPS[self.kind]()
        x = op.apply_op(x)
        other = self._get_op(self.extra)
        return other.transform(x)
