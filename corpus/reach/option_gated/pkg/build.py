"""A construction site that sets one option: its branch is in the normal tier."""

from .model import Block


def make_block(dim):
    return Block(dim, checkpoint_every=True)
