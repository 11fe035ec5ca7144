"""torchgeo 0.10.1 models as `graphbreak check` cases (random weights: `weights=None` / pretrained=False).

Users compile the models of `torchgeo.models` (directly, or inside torchgeo's Lightning trainers, which call
`model(x)` in training_step): segmentation / change-detection networks, multispectral foundation models
that take the bands' wavelengths or metadata, time-series encoders. Only models whose forward is torchgeo's
own code are cases (the timm/torchvision wrappers `resnet18`, `vit_*`, `swin_*` run other libraries' code).
Training steps follow the trainers: cross-entropy for segmentation / change maps, MSE on embeddings for
encoders. Inputs are small (32-64 px tiles, few bands, short time series) so CPU runs are quick.
"""

import py311_shim  # noqa: F401  (torchgeo 0.10.1's one 3.12-only line; see py311_shim.py)
import torch
import torch.nn.functional as F
from torchgeo.models import (
    BTC,
    CROMA,
    DOFA,
    FCN,
    LTAE,
    RCF,
    ChangeStarFarSeg,
    ChangeViT,
    ConvLSTM,
    CopernicusFM,
    EarthLoc,
    FarSeg,
    FCSiamConc,
    FCSiamDiff,
    Presto,
    SatCLIP,
    Tessera,
    TileNet,
)


def _img(batch=2, bands=3, size=64):
    g = torch.Generator().manual_seed(0)
    return torch.randn(batch, bands, size, size, generator=g)


def _seg_case(model, x, classes, train, size=None):
    case = {"model": model, "args": (x,)}
    if train:
        size = size or x.shape[-1]
        target = torch.randint(0, classes, (x.shape[0], size, size))
        case["loss"] = lambda out: F.cross_entropy(out, target)
    return case


def _embed_loss(out):
    out = out[0] if isinstance(out, (tuple, list)) else out
    return out.float().pow(2).mean()


def case_farseg(train=False):
    torch.manual_seed(0)
    return _seg_case(FarSeg(backbone="resnet18", classes=4, backbone_weights=None), _img(), 4, train)


def case_changestar_farseg(train=False):
    torch.manual_seed(0)
    model = ChangeStarFarSeg(backbone="resnet18", classes=2, backbone_weights=None)
    x = torch.randn(2, 2, 3, 64, 64)  # bitemporal [b, t, c, h, w]
    case = {"model": model, "args": (x,)}
    if train:
        case["loss"] = lambda out: sum(v.float().pow(2).mean() for v in out.values())
    return case


def case_fcn(train=False):
    torch.manual_seed(0)
    return _seg_case(FCN(in_channels=4, classes=3, num_filters=16), _img(bands=4), 3, train)


def case_fcsiam(kind="diff", train=False):
    torch.manual_seed(0)
    cls = FCSiamDiff if kind == "diff" else FCSiamConc
    model = cls(encoder_name="resnet18", encoder_weights=None, in_channels=3, classes=2)
    x = torch.randn(2, 2, 3, 64, 64)
    case = {"model": model, "args": (x,)}
    if train:
        target = torch.randint(0, 2, (2, 64, 64))
        case["loss"] = lambda out: F.cross_entropy(out, target)
    return case


def case_btc(train=False):
    torch.manual_seed(0)
    model = BTC(backbone="swin_tiny", backbone_pretrained=False, classes=1)
    x = torch.randn(1, 6, 64, 64)
    case = {"model": model, "args": (x,)}
    if train:
        target = torch.rand(1, 1, 64, 64)
        case["loss"] = lambda out: F.binary_cross_entropy_with_logits(out, target)
    return case


def case_changevit(train=False):
    torch.manual_seed(0)
    model = ChangeViT(backbone="vit_small_patch16_224", img_size=64, in_channels=3, num_classes=1, pretrained=False)
    x = torch.randn(1, 2, 3, 64, 64)  # bitemporal [b, t, c, h, w]
    case = {"model": model, "args": (x,)}
    if train:
        target = torch.rand(1, 1, 64, 64)
        case["loss"] = lambda out: F.binary_cross_entropy_with_logits(out, target)
    return case


def case_convlstm(train=False):
    torch.manual_seed(0)
    model = ConvLSTM(input_dim=3, hidden_dim=[8, 8], kernel_size=3, num_layers=2, num_classes=2)
    x = torch.randn(2, 4, 3, 16, 16)  # [b, t, c, h, w]
    case = {"model": model, "args": (x,)}
    if train:
        case["loss"] = _embed_loss
    return case


def case_ltae(train=False):
    torch.manual_seed(0)
    model = LTAE(in_channels=32, n_head=4, d_k=8, n_neurons=(64, 32), d_model=64, len_max_seq=12)
    x = torch.randn(4, 12, 32)
    case = {"model": model, "args": (x,)}
    if train:
        case["loss"] = _embed_loss
    return case


def case_rcf(mode="gaussian"):
    torch.manual_seed(0)
    model = RCF(in_channels=4, features=16, kernel_size=3, seed=0, mode=mode)
    return {"model": model, "args": (_img(bands=4, size=32),)}


def case_dofa(train=False):
    torch.manual_seed(0)
    model = DOFA(img_size=64, patch_size=16, embed_dim=96, depth=2, num_heads=4, num_classes=5)
    wavelengths = [0.665, 0.56, 0.49, 0.842]
    x = _img(bands=4)
    case = {"model": model, "args": (x, wavelengths)}
    if train:
        target = torch.randint(0, 5, (2,))
        case["loss"] = lambda out: F.cross_entropy(out, target)
    return case


def case_copernicusfm(train=False):
    torch.manual_seed(0)
    model = CopernicusFM(img_size=64, patch_size=16, embed_dim=96, depth=2, num_heads=4, num_classes=5)
    x = _img(bands=4)
    metadata = torch.tensor([[10.0, 45.0, 100.0, 10.0], [-50.0, 12.0, 200.0, 10.0]])
    case = {
        "model": model,
        "args": (x, metadata),
        "kwargs": {"wavelengths": [665.0, 560.0, 490.0, 842.0], "bandwidths": [30.0, 35.0, 65.0, 115.0],
                   "input_mode": "spectral", "kernel_size": 16},
    }
    if train:
        target = torch.randint(0, 5, (2,))
        case["loss"] = lambda out: F.cross_entropy(out, target)
    return case


def case_croma(modalities="both", train=False):
    torch.manual_seed(0)
    mods = {"both": ["sar", "optical"], "optical": ["optical"]}[modalities]
    model = CROMA(modalities=mods, encoder_dim=64, encoder_depth=2, num_heads=16, patch_size=8, image_size=32)
    kwargs = {"x_optical": torch.randn(2, 12, 32, 32)}
    if "sar" in mods:
        kwargs["x_sar"] = torch.randn(2, 2, 32, 32)
    case = {"model": model, "args": (), "kwargs": kwargs}
    if train:
        case["loss"] = lambda out: sum(v.float().pow(2).mean() for v in out.values())
    return case


def case_presto(train=False):
    torch.manual_seed(0)
    model = Presto(encoder_embedding_size=64, encoder_depth=2, encoder_num_heads=4, decoder_embedding_size=64,
                   decoder_depth=2, decoder_num_heads=4)
    x = torch.randn(2, 12, 17)  # [b, timesteps, bands]
    dynamic_world = torch.randint(0, 9, (2, 12))
    latlons = torch.tensor([[45.0, 10.0], [-12.0, 130.0]])
    case = {"model": model, "args": (x, dynamic_world, latlons), "kwargs": {"month": 3}}
    if train:
        case["loss"] = _embed_loss
    return case


def case_tessera(train=False):
    torch.manual_seed(0)
    model = Tessera(embed_dim=64)
    x = torch.randn(2, 10, 14)
    case = {"model": model, "args": (x,)}
    if train:
        case["loss"] = _embed_loss
    return case


def case_satclip(train=False):
    torch.manual_seed(0)
    model = SatCLIP(legendre_polys=10, capacity=64, embed_dim=32, num_hidden_layers=2)
    coords = torch.tensor([[10.0, 45.0], [-120.0, 35.0], [150.0, -30.0]])
    case = {"model": model, "args": (coords,)}
    if train:
        case["loss"] = _embed_loss
    return case


def case_earthloc(train=False):
    torch.manual_seed(0)
    model = EarthLoc(in_channels=3, image_size=64, desc_dim=256, backbone="resnet50", pretrained=False)
    case = {"model": model, "args": (_img(),)}
    if train:
        case["loss"] = _embed_loss
    return case


def case_tilenet(train=False):
    torch.manual_seed(0)
    model = TileNet(in_channels=4, z_dim=64)
    case = {"model": model, "args": (_img(bands=4, size=64),)}
    if train:
        case["loss"] = _embed_loss
    return case
