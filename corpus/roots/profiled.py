"""Compile-roots fixture (scanned with `--roots profiled.ProfiledNet` by tests/scan_cli.rs, run
under real Dynamo by tests/python/test_rule_proofs.py): with roots, the root is called with its
input only, so `profile=False` / `augment=False` flags that no traced call sets stay False, also
when passed down as the caller's own flag. Nothing here may be reported with that root; the
compiled call has 0 graph breaks."""

import torch
from torch import nn


class ProfiledNet(nn.Module):
    """ultralytics' shape: `profile=False` / `augment=False` flags that the compiled call never
    sets (the model is called with its input only), passed down as the caller's own flag."""

    def forward(self, x, *args, **kwargs):
        return self.predict(x, *args, **kwargs)

    def predict(self, x, profile=False, augment=False):
        if augment:
            return self._augmented(x)
        return self._once(x, profile)

    def _once(self, x, profile=False):
        if profile:
            self._profile(x)
        return x * 2

    def _augmented(self, x):
        return x * x.max().item()

    def _profile(self, x):
        print(x.sum().item())


class Augmented(ProfiledNet):
    """A caller that does pass the flag: with this class as the root, `_augmented` is traced."""

    def forward(self, x):
        return self.predict(x, augment=True)
