"""A collaborator holding the cache: built in `__init__`, or given to the constructor
(annotated `Optional[Cache]`, as a library documents an injected part)."""

from typing import Optional

import torch

from pkg.cache import Cache


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = Cache()

    def forward(self, x):
        return x


class InjectedAttention(torch.nn.Module):
    def __init__(self, cache: Optional[Cache] = None):
        super().__init__()
        self.cache = cache

    def forward(self, x):
        return x


class LazyAttention(torch.nn.Module):
    """Stores its cache outside `__init__` (`None` until `setup_cache()` runs)."""

    def __init__(self):
        super().__init__()
        self.cache = None

    def setup_cache(self):
        self.cache = Cache()
