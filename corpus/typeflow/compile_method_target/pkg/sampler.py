import torch


class Refiner:
    def refine(self, x):
        return x.sum().item()


def build_refiner():
    return Refiner()


class Sampler:
    def __init__(self, refiner):
        self._refine = torch.compile(refiner.refine)

    def __call__(self, x):
        return self._refine(x)


def build_sampler():
    return Sampler(build_refiner())
