from torch import nn

from pkg.layers.recurrent import Lstm


class Gru(nn.GRU):
    # A second project subclass of a torch module Dynamo will not wrap.
    pass


def pick_cell(kind):
    # Every class this helper can return is an RNN kind: bound through a local in each branch.
    if kind == "lstm":
        cell = Lstm
    else:
        cell = Gru
    return cell


def pick_layer(kind, default):
    # One branch returns what the caller passed: not every class it can return is known.
    if kind == "lstm":
        layer = Lstm
    else:
        layer = default
    return layer


def pick_known(cell):
    # A class the caller passes is kept only inside `issubclass(cell, nn.LSTM)`: still an RNN kind.
    if issubclass(cell, nn.LSTM):
        chosen = cell
    else:
        chosen = Gru
    return chosen


def pick_kept(cell):
    # A module instance passed in is kept: called with constructor arguments it runs its
    # `forward` and builds no submodule, so the only classes this can build are `Lstm`.
    if isinstance(cell, nn.Module):
        chosen = cell
    else:
        chosen = Lstm
    return chosen
