import torch


class Base(torch.nn.Module):
    def __init__(self, *, refiner=None):
        super().__init__()
        self.refiner = refiner

    def forward(self, x):
        return self.refiner.refine(x)
