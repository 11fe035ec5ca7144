from .common import *


class Net(nn.Module):
    def forward(self, x):
        return report(x)
