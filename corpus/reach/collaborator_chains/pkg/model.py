"""Chains of stored collaborators (src/semantic/link/property_reads.rs `stored_chain_classes`):
a property read and a method call two hops from `self`, each hop's class the one stored on that
attribute by the class holding it (or by a project base, in any of its methods). tests/collaborator_chains.rs pins what scan reports;
tests/python/test_collaborator_reach_proofs.py shows Dynamo breaks at exactly those lines.
"""

import torch

from pkg.attention import Attention, InjectedAttention, LazyAttention
from pkg.cache import Cache


class ReadsThroughChain(torch.nn.Module):
    """`self.attn.cache.size`: the getter of the cache `Attention.__init__` built."""

    def __init__(self):
        super().__init__()
        self.attn = Attention()

    def forward(self, x):
        return x + self.attn.cache.size


class CallsThroughChain(torch.nn.Module):
    """`self.attn.cache.positions()`: the cache's method, through an annotated parameter."""

    def __init__(self, attn: InjectedAttention):
        super().__init__()
        self.attn = attn

    def forward(self, x):
        return x, self.attn.cache.positions()


class ReadsWhatABaseStored(LazyAttention):
    """`self.cache.size` where only the base's `setup_cache()` stored the cache."""

    def forward(self, x):
        return x + self.cache.size


def case_read():
    return ReadsThroughChain(), (torch.randn(1),)


def case_call():
    return CallsThroughChain(InjectedAttention(Cache())), (torch.randn(1),)


def case_base():
    model = ReadsWhatABaseStored()
    model.setup_cache()
    return model, (torch.randn(1),)
