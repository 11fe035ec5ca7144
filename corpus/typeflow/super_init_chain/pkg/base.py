import torch


class Base(torch.nn.Module):
    def __init__(self, neck):
        super().__init__()
        self.neck = neck

    def forward(self, x):
        return self.neck.run(x)
