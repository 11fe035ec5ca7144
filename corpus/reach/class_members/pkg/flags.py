"""A switch class whose members are called on the class, not on an instance."""

import torch


class Switch:
    _state = torch.ones(1)

    @classmethod
    def level(cls):
        top = cls._state.max().item()
        return top

    @classmethod
    def _check_state(cls, state):
        top = state.max().item()
        return top > 0

    def __init__(self, state):
        self.state = state

    def __enter__(self):
        self.__class__._check_state(self.state)
        return self

    def __exit__(self, *exc):
        return False


class FastPath(Switch):
    """Inherits every member: `FastPath.level()` runs `Switch.level`."""
