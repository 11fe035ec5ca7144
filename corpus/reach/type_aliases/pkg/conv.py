"""A compiled module's input annotated with a project type alias of `Optional[Tensor]`: a tensor
whenever the user passes one, so the mask built from it and passed to a helper is one (the helper's
read breaks the graph, as tests/python/test_rule_proofs.py's BR003 `mask_passed_as_an_argument`
measures). An input annotated with an alias of something else is not taken for a tensor."""

from torch import nn

from pkg.types_ import Adj, OptTensor


def masked(edge_index, mask):
    return edge_index[:, mask]


def scaled(x, factor):
    if factor:
        return x * 2
    return x


class Conv(nn.Module):
    def forward(self, x, edge_index, edge_type: OptTensor = None, adj: Adj = None):
        if edge_type is not None:
            for i in range(3):
                edge_index = masked(edge_index, edge_type == i)
        return scaled(x, adj), edge_index
