"""torch-geometric 2.8.1 GNN models as `graphbreak check` cases (random init, small random graphs).

Users build a model from `torch_geometric.nn` (the README's and the docs' examples: the basic GNNs GCN / GAT /
GraphSAGE / GIN / PNA / EdgeCNN, GraphUNet, AttentiveFP, GAE, or their own module of `*Conv`
layers plus a global pooling) and compile it, as the docs' "Compiled Graph Neural Networks" page says, with
`torch.compile(model)`, then run `model(x, edge_index)`. Training cases run
train mode with the model's loss (cross-entropy on node or graph labels, MSE on graph targets, GAE's
reconstruction loss) and backward; eval cases run eval mode under no_grad. Graphs: 40 nodes, 160 random edges,
16 features, 4 classes so CPU runs are quick. SchNet and DimeNet++ are not cases: their forward builds the radius graph with
`radius_graph`, which in 2.8.1 requires the compiled `pyg-lib>=0.6.0` extension (no wheel for torch 2.11 on PyPI).
"""

import torch
import torch.nn.functional as F
from torch import nn

from torch_geometric.nn import (GAE, GATConv, GCNConv, GPSConv, GINConv, RGCNConv, TransformerConv,
                                global_add_pool, global_mean_pool)
from torch_geometric.nn.models import GAT, GCN, GIN, PNA, AttentiveFP, EdgeCNN, GraphSAGE, GraphUNet
from torch_geometric.utils import degree

N, E, F_IN, CLASSES, HIDDEN = 40, 160, 16, 4, 32


def _graph(seed=0, num_nodes=N, num_edges=E, features=F_IN):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(num_nodes, features, generator=g)
    edge_index = torch.randint(0, num_nodes, (2, num_edges), generator=g)
    y = torch.randint(0, CLASSES, (num_nodes,), generator=g)
    return x, edge_index, y


def _node_case(model, train, extra=()):
    x, edge_index, y = _graph()
    case = {"model": model, "args": (x, edge_index) + tuple(extra)}
    if train:
        case["loss"] = lambda out: F.cross_entropy(out, y)
    return case


def _pna():
    _, edge_index, _ = _graph()
    deg = torch.bincount(degree(edge_index[1], N, dtype=torch.long), minlength=1)
    return PNA(F_IN, HIDDEN, num_layers=2, out_channels=CLASSES, aggregators=["mean", "min", "max", "std"],
               scalers=["identity", "amplification", "attenuation"], deg=deg)


BASIC = {
    "gcn": lambda: GCN(F_IN, HIDDEN, num_layers=2, out_channels=CLASSES, dropout=0.5),
    "gat": lambda: GAT(F_IN, HIDDEN, num_layers=2, out_channels=CLASSES, heads=4, dropout=0.5),
    "gatv2": lambda: GAT(F_IN, HIDDEN, num_layers=2, out_channels=CLASSES, heads=4, v2=True),
    "sage": lambda: GraphSAGE(F_IN, HIDDEN, num_layers=2, out_channels=CLASSES, jk="cat"),
    "gin": lambda: GIN(F_IN, HIDDEN, num_layers=3, out_channels=CLASSES, norm="batch_norm"),
    "pna": _pna,
    "edgecnn": lambda: EdgeCNN(F_IN, HIDDEN, num_layers=2, out_channels=CLASSES),
}


def case_node(name="gcn", train=True):
    """Node classification with a basic GNN: out = model(x, edge_index)."""
    torch.manual_seed(0)
    return _node_case(BASIC[name](), train)


def case_graph_unet(train=True):
    torch.manual_seed(0)
    return _node_case(GraphUNet(F_IN, HIDDEN, CLASSES, depth=2), train)


class GraphClassifier(nn.Module):
    """The graph-classification example (GIN layers, global add pooling, MLP head) over a batch of graphs."""

    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList()
        dims = [F_IN, HIDDEN, HIDDEN]
        for i in range(2):
            mlp = nn.Sequential(nn.Linear(dims[i], dims[i + 1]), nn.BatchNorm1d(dims[i + 1]), nn.ReLU(),
                                nn.Linear(dims[i + 1], dims[i + 1]))
            self.convs.append(GINConv(mlp, train_eps=True))
        self.head = nn.Linear(HIDDEN, CLASSES)

    def forward(self, x, edge_index, batch):
        for conv in self.convs:
            x = conv(x, edge_index).relu()
        return self.head(global_add_pool(x, batch))


def _batched_graphs():
    x, edge_index, _ = _graph()
    batch = torch.arange(N) // (N // 4)  # 4 graphs of 10 nodes (edges may cross graphs; shapes are what matter)
    y = torch.arange(4) % CLASSES
    return x, edge_index, batch, y


def case_graph_classification(train=True):
    torch.manual_seed(0)
    x, edge_index, batch, y = _batched_graphs()
    case = {"model": GraphClassifier(), "args": (x, edge_index, batch)}
    if train:
        case["loss"] = lambda out: F.cross_entropy(out, y)
    return case


def case_attentive_fp(train=True):
    """AttentiveFP molecular property model: model(x, edge_index, edge_attr, batch)."""
    torch.manual_seed(0)
    x, edge_index, batch, _ = _batched_graphs()
    edge_attr = torch.randn(E, 8, generator=torch.Generator().manual_seed(1))
    target = torch.randn(4, 1)
    model = AttentiveFP(F_IN, HIDDEN, 1, edge_dim=8, num_layers=2, num_timesteps=2, dropout=0.1)
    case = {"model": model, "args": (x, edge_index, edge_attr, batch)}
    if train:
        case["loss"] = lambda out: F.mse_loss(out, target)
    return case


class RGCN(nn.Module):
    """The relational-GCN example (entity classification with typed edges)."""

    def __init__(self, num_relations=3):
        super().__init__()
        self.conv1 = RGCNConv(F_IN, HIDDEN, num_relations, num_bases=2)
        self.conv2 = RGCNConv(HIDDEN, CLASSES, num_relations, num_bases=2)

    def forward(self, x, edge_index, edge_type):
        x = F.relu(self.conv1(x, edge_index, edge_type))
        return self.conv2(x, edge_index, edge_type)


def case_rgcn(train=True):
    torch.manual_seed(0)
    edge_type = torch.randint(0, 3, (E,), generator=torch.Generator().manual_seed(2))
    return _node_case(RGCN(), train, extra=(edge_type,))


class GraphTransformer(nn.Module):
    """A graph transformer from the docs' examples: TransformerConv layers with edge features, then GPSConv."""

    def __init__(self):
        super().__init__()
        self.conv1 = TransformerConv(F_IN, HIDDEN // 4, heads=4, edge_dim=8)
        self.gps = GPSConv(HIDDEN, GATConv(HIDDEN, HIDDEN // 4, heads=4), heads=4)
        self.head = nn.Linear(HIDDEN, CLASSES)

    def forward(self, x, edge_index, edge_attr):
        x = F.relu(self.conv1(x, edge_index, edge_attr))
        x = self.gps(x, edge_index)
        return self.head(x)


def case_graph_transformer(train=True):
    torch.manual_seed(0)
    edge_attr = torch.randn(E, 8, generator=torch.Generator().manual_seed(3))
    return _node_case(GraphTransformer(), train, extra=(edge_attr,))


class GCNEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GCNConv(F_IN, HIDDEN)
        self.conv2 = GCNConv(HIDDEN, 16)

    def forward(self, x, edge_index):
        return self.conv2(self.conv1(x, edge_index).relu(), edge_index)


class GAEStep(nn.Module):
    """The autoencoder example's training step: z = model.encode(x, edge_index); loss = model.recon_loss(z, pos)."""

    def __init__(self):
        super().__init__()
        self.model = GAE(GCNEncoder())

    def forward(self, x, edge_index):
        z = self.model.encode(x, edge_index)
        return self.model.recon_loss(z, edge_index)


def case_gae():
    torch.manual_seed(0)
    x, edge_index, _ = _graph()
    return {"model": GAEStep(), "args": (x, edge_index), "loss": lambda out: out}


def case_mean_pool_readout():
    """Eval: graph embeddings (GCN + global mean pooling), as an inference service computes them."""
    torch.manual_seed(0)
    x, edge_index, batch, _ = _batched_graphs()

    class Readout(nn.Module):
        def __init__(self):
            super().__init__()
            self.gnn = GCN(F_IN, HIDDEN, num_layers=2)

        def forward(self, x, edge_index, batch):
            return global_mean_pool(self.gnn(x, edge_index), batch)

    return {"model": Readout(), "args": (x, edge_index, batch)}
