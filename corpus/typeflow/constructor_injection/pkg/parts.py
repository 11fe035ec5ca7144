import torch


class Backbone(torch.nn.Module):
    def forward(self, x):
        return x * 2


class Head:
    def loss(self, x):
        return x.sum().item()
