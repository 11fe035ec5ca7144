"""Compile-roots fixture (scanned with `--roots profiled.ProfiledNet` by tests/scan_cli.rs, run
under real Dynamo by tests/python/test_rule_proofs.py): with roots, the root is called with its
input only, so `profile=False` / `augment=False` flags that no traced call sets stay False, also
when passed down as the caller's own flag, and so do `cache_data=None` constructor parameters that
no traced `LayerCache(...)` call passes (`cache_data is not None` is False). Nothing here may be reported with that root; the
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
        cache = LayerCache(size=4)
        return x * 2 + cache.size

    def _augmented(self, x):
        cache = LayerCache([x.max()])
        return x * x.max().item() + len(cache.windows)

    def _profile(self, x):
        print(x.sum().item())


class LayerCache:
    """transformers' DynamicCache shape: `cache_data` is filled only by a data-parallel gather;
    models build the cache with a size only, so the `.item()` below is never traced for them."""

    def __init__(self, cache_data=None, size=None):
        self.size = size
        self.windows = []
        if cache_data is not None:
            for window in cache_data:
                self.windows.append(window.item())


class Augmented(ProfiledNet):
    """A caller that does pass the flag: with this class as the root, `_augmented` is traced."""

    def forward(self, x):
        return self.predict(x, augment=True)
