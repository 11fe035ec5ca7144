"""Compile-roots fixture (scanned with `--roots profiled.ProfiledNet` by tests/scan_cli.rs, run
under real Dynamo by tests/python/test_rule_proofs.py): with roots, the root is called with its
input only, so `profile=False` / `augment=False` flags that no traced call sets stay False, also
when passed down as the caller's own flag, and so do `cache_data=None` constructor parameters that
no traced `LayerCache(...)` call passes (`cache_data is not None` is False), also through a
subclass that forwards `*args, **kwargs`, `len(caches) == 1` on a `*caches` that every traced
call fills with two, and `isinstance(shape, tuple)` on a parameter every traced call passes `x.shape`. Nothing here may be reported with that root; the
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
        pair = PairCache(LayerCache(size=4), SizedCache(size=4))
        return restore_rows(x * 2, x.shape) + cache.size + pair.self_cache.size

    def _augmented(self, x):
        cache = LayerCache([x.max()])
        rows = restore_rows(x, (x == x).sum(0))
        return rows * x.max().item() + len(cache.windows)

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


def restore_rows(x, shape: torch.Tensor):
    """diffusers' seq2img: `shape` may be a torch.Size or a tensor; the models pass `x.shape`."""
    if isinstance(shape, tuple):
        rows = shape[0]
    elif isinstance(shape, torch.Tensor):
        rows = int(shape[0])
    else:
        raise TypeError(type(shape))
    return x.reshape(rows, -1)


class SizedCache(LayerCache):
    """transformers' DFlashCache: forwards everything; models build it with a size only."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.accepted = 0


class PairCache:
    """transformers' EncoderDecoderCache: a single argument is data-parallel data; models pass two
    caches."""

    def __init__(self, *caches):
        if len(caches) == 1:
            self.self_cache = LayerCache(caches[0])
        else:
            self.self_cache = caches[0]


class Augmented(ProfiledNet):
    """A caller that does pass the flag: with this class as the root, `_augmented` is traced."""

    def forward(self, x):
        return self.predict(x, augment=True)
