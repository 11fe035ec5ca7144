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
