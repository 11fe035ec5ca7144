"""The innermost collaborator: a buffer-backed cache whose property and method read a tensor
value in Python (a graph break under Dynamo). model.py reaches them only through chains of
stored collaborators (`self.attn.cache.size`)."""

import torch


class Cache(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("pos", torch.zeros(1, dtype=torch.long))

    @property
    def size(self) -> int:
        return self.pos[0].item()

    def positions(self):
        return self.pos.tolist()


class Unused(torch.nn.Module):
    """Has the same names; no chain stores one, so nothing here is reached."""

    @property
    def size(self) -> int:
        return int(self.pos.sum())

    def positions(self):
        return self.pos.tolist()
