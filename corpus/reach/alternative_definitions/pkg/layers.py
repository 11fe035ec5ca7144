"""Two class statements binding one name — an optional dependency's variant and its fallback, and
a branch on the Python version — are two classes: `self` in a method of one is an instance of that
one, and the name may be either."""

import sys
import warnings

import torch


class _Sampler(torch.nn.Module):
    def draw(self, x):
        return x

    def forward(self, x):
        return self.draw(x)


try:
    import graphbreak_absent_optional_dependency  # noqa: F401

    class Sampler(_Sampler):
        @property
        def prefix(self):
            return "sample"

        def draw(self, x):
            # `self` is this statement's Sampler: its own `prefix`, which never warns.
            return x * len(self.prefix)

except ImportError:

    class Sampler(_Sampler):
        @property
        def prefix(self):
            warnings.warn("prefix is only used with the optional dependency")
            return ""


if sys.version_info >= (3, 9):

    class Scaler(torch.nn.Module):
        @property
        def factor(self):
            warnings.warn("factor is read in traced code")
            return 2.0

        def forward(self, x):
            y = x + 1
            return y * self.factor

else:

    class Scaler(torch.nn.Module):
        def forward(self, x):
            return x
