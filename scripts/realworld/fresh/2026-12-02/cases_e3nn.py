"""e3nn 0.6.0 equivariant layers and networks as `graphbreak check` cases (random init, small sizes).

Users build equivariant layers from irreps (`o3.Linear`, `o3.FullyConnectedTensorProduct`, `o3.spherical_harmonics`,
`nn.Gate`, `nn.BatchNorm`, `nn.FullyConnectedNet`) and compose them into point-cloud / graph networks as the README
and the docs' examples do (the convolution of the "Convolution" guide; the ready-made networks in
`e3nn.nn.models`: gate_points_2101.Network, v2106 SimpleNetwork / NetworkForAGraphWithAttributes, the v2104 voxel
convolution), then `torch.compile` the module. On torch >= 2.10 e3nn's default code-generation mode is "eager"
(no TorchScript), which is what these cases use. Training cases run train mode with MSE on a random target and
backward; eval cases run eval mode under no_grad. Point clouds: 2 graphs of 12 points.
"""

import torch
import torch.nn.functional as F
from torch import nn

from e3nn import o3
from e3nn.math import soft_one_hot_linspace
from e3nn.nn import BatchNorm, FullyConnectedNet, Gate, NormActivation
from e3nn.nn.models.gate_points_2101 import Network
from e3nn.nn.models.v2104.voxel_convolution import Convolution as VoxelConvolution
from e3nn.nn.models.v2106.gate_points_networks import NetworkForAGraphWithAttributes, SimpleNetwork

NODES = 24


def _points(seed=0):
    g = torch.Generator().manual_seed(seed)
    pos = torch.randn(NODES, 3, generator=g)
    batch = torch.arange(NODES) // (NODES // 2)
    return pos, batch, g


def _mse_case(model, args, out_shape_fn, train):
    case = {"model": model, "args": args}
    if train:
        g = torch.Generator().manual_seed(7)
        target_holder = {}

        def loss(out):
            if "t" not in target_holder:
                target_holder["t"] = torch.randn(out.shape, generator=g)
            return F.mse_loss(out, target_holder["t"].to(out.device))

        case["loss"] = loss
    return case


def case_simple_network(train=True):
    """v2106 SimpleNetwork on a dict of pos / x / batch (radius graph built inside forward)."""
    torch.manual_seed(0)
    pos, batch, g = _points()
    model = SimpleNetwork(irreps_in="3x0e + 2x1o", irreps_out="1x0e + 1x1o", max_radius=2.0, num_neighbors=3.0,
                          num_nodes=12.0, mul=8, layers=2, lmax=2)
    data = {"pos": pos, "x": torch.randn(NODES, 9, generator=g), "batch": batch}
    return _mse_case(model, (data,), None, train)


def case_graph_with_attributes(train=True):
    """v2106 NetworkForAGraphWithAttributes with a given edge_index and node / edge attributes."""
    torch.manual_seed(0)
    pos, batch, g = _points()
    edge_index = torch.randint(0, NODES // 2, (2, 40), generator=g)
    edge_index = torch.cat([edge_index, edge_index + NODES // 2], dim=1)
    model = NetworkForAGraphWithAttributes(irreps_node_input="4x0e", irreps_node_attr="2x0e",
                                           irreps_edge_attr="2x0e", irreps_node_output="2x0e + 1x1o",
                                           max_radius=2.0, num_neighbors=3.0, num_nodes=12.0, mul=8, layers=2, lmax=2)
    data = {"pos": pos, "batch": batch, "edge_index": edge_index, "node_input": torch.randn(NODES, 4, generator=g),
            "node_attr": torch.randn(NODES, 2, generator=g), "edge_attr": torch.randn(80, 2, generator=g)}
    return _mse_case(model, (data,), None, train)


def case_gate_points_2101(train=True):
    """gate_points_2101.Network (the docs' point-cloud network) with node attributes z."""
    torch.manual_seed(0)
    pos, batch, g = _points()
    model = Network(irreps_in="2x0e", irreps_hidden="8x0e + 8x0o + 4x1e + 4x1o", irreps_out="1x0e",
                    irreps_node_attr="1x0e", irreps_edge_attr=o3.Irreps.spherical_harmonics(2), layers=2,
                    max_radius=2.0, number_of_basis=8, radial_layers=1, radial_neurons=16, num_neighbors=3.0,
                    num_nodes=12.0)
    data = {"pos": pos, "x": torch.randn(NODES, 2, generator=g), "z": torch.ones(NODES, 1), "batch": batch}
    return _mse_case(model, (data,), None, train)


class Convolution(nn.Module):
    """The docs' "Convolution" guide: spherical harmonics of edge vectors, radial MLP giving the tensor-product
    weights, scatter-sum over neighbours; then a gated nonlinearity and batch norm."""

    def __init__(self, irreps_in="4x0e + 2x1o", irreps_out="4x0e + 2x1o", max_radius=2.0, num_basis=8):
        super().__init__()
        self.irreps_in = o3.Irreps(irreps_in)
        self.irreps_sh = o3.Irreps.spherical_harmonics(2)
        self.max_radius = max_radius
        self.num_basis = num_basis
        gate = Gate("4x0e", [torch.relu], "2x0e", [torch.sigmoid], "2x1o")
        self.tp = o3.FullyConnectedTensorProduct(self.irreps_in, self.irreps_sh, gate.irreps_in, shared_weights=False)
        self.fc = FullyConnectedNet([num_basis, 16, self.tp.weight_numel], torch.relu)
        self.gate = gate
        self.norm = BatchNorm(gate.irreps_out)
        self.out = o3.Linear(gate.irreps_out, irreps_out)

    def forward(self, x, pos, edge_src, edge_dst):
        edge_vec = pos[edge_dst] - pos[edge_src]
        sh = o3.spherical_harmonics(self.irreps_sh, edge_vec, normalize=True, normalization="component")
        emb = soft_one_hot_linspace(edge_vec.norm(dim=1), 0.0, self.max_radius, self.num_basis, basis="smooth_finite",
                                    cutoff=True).mul(self.num_basis ** 0.5)
        edge_features = self.tp(x[edge_src], sh, self.fc(emb))
        out = torch.zeros(x.shape[0], edge_features.shape[1], dtype=x.dtype, device=x.device)
        out = out.index_add(0, edge_dst, edge_features)
        return self.out(self.norm(self.gate(out)))


def case_convolution(train=True):
    torch.manual_seed(0)
    pos, _, g = _points()
    edge_src = torch.randint(0, NODES, (80,), generator=g)
    edge_dst = torch.randint(0, NODES, (80,), generator=g)
    x = torch.randn(NODES, o3.Irreps("4x0e + 2x1o").dim, generator=g)
    return _mse_case(Convolution(), (x, pos, edge_src, edge_dst), None, train)


class IrrepsMLP(nn.Module):
    """Layers of o3.Linear / o3.FullyConnectedTensorProduct / o3.TensorSquare / NormActivation stacked."""

    def __init__(self):
        super().__init__()
        self.lin1 = o3.Linear("8x0e + 4x1o", "8x0e + 4x1o + 2x2e")
        self.tp = o3.FullyConnectedTensorProduct("8x0e + 4x1o + 2x2e", "1x0e + 1x1o", "8x0e + 4x1o")
        self.act = NormActivation("8x0e + 4x1o", torch.sigmoid)
        self.square = o3.TensorSquare("8x0e + 4x1o", "4x0e + 2x1e")
        self.norm = o3.Norm("4x0e + 2x1e")

    def forward(self, x, y):
        h = self.lin1(x)
        h = self.act(self.tp(h, y))
        return self.norm(self.square(h))


def case_irreps_layers(train=True):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(16, o3.Irreps("8x0e + 4x1o").dim, generator=g)
    y = torch.randn(16, 4, generator=g)
    return _mse_case(IrrepsMLP(), (x, y), None, train)


def case_voxel_convolution(train=False):
    """v2104 voxel convolution on a 3-D grid of irreps features."""
    torch.manual_seed(0)
    model = VoxelConvolution("2x0e + 1x1o", "2x0e + 1x1o", irreps_sh="0e + 1o", diameter=3.0, num_radial_basis=3,
                             steps=(1.0, 1.0, 1.0))
    x = torch.randn(1, 5, 8, 8, 8, generator=torch.Generator().manual_seed(0))
    return _mse_case(model, (x,), None, train)


def case_spherical_harmonics():
    """Eval: o3.SphericalHarmonics module (edge-attribute featurizer)."""
    model = o3.SphericalHarmonics(o3.Irreps.spherical_harmonics(3), normalize=True, normalization="component")
    return {"model": model, "args": (torch.randn(64, 3, generator=torch.Generator().manual_seed(0)),)}
