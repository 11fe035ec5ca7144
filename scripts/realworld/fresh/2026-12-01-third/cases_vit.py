"""vit-pytorch 1.26.11 models as `graphbreak check` cases (random init, small sizes).

Users build a model from the README (`ViT(image_size=..., patch_size=..., num_classes=..., dim=..., depth=...,
heads=..., mlp_dim=...)`, and the same for the other variants) and compile/train it as an image classifier:
`preds = v(img)`; self-supervised wrappers (MAE, SimMIM) return their loss from `learner(images)`.
Eval cases run eval mode under no_grad; training cases (`train=True`) run train mode with cross-entropy on the
logits (or the wrapper's own loss) and backward. Sizes follow the README's examples scaled down (32-64 px images,
dim 64, depth 2) so CPU runs are quick.
"""

import torch
import torch.nn.functional as F
from vit_pytorch import SimpleViT, ViT
from vit_pytorch.cait import CaiT
from vit_pytorch.cct import CCT
from vit_pytorch.cross_vit import CrossViT
from vit_pytorch.crossformer import CrossFormer
from vit_pytorch.cvt import CvT
from vit_pytorch.deepvit import DeepViT
from vit_pytorch.levit import LeViT
from vit_pytorch.mae import MAE
from vit_pytorch.max_vit import MaxViT
from vit_pytorch.mobile_vit import MobileViT
from vit_pytorch.na_vit import NaViT
from vit_pytorch.nest import NesT
from vit_pytorch.pit import PiT
from vit_pytorch.regionvit import RegionViT
from vit_pytorch.simmim import SimMIM
from vit_pytorch.t2t import T2TViT
from vit_pytorch.twins_svt import TwinsSVT
from vit_pytorch.vit_3d import ViT as ViT3D
from vit_pytorch.simple_vit_1d import SimpleViT as SimpleViT1D

CLASSES = 10


def _img(size=32, batch=2, channels=3):
    g = torch.Generator().manual_seed(0)
    return torch.randn(batch, channels, size, size, generator=g)


def _cls_case(model, x, train):
    case = {"model": model, "args": (x,)}
    if train:
        labels = torch.randint(0, CLASSES, (x.shape[0],))
        case["loss"] = lambda out: F.cross_entropy(out, labels)
    return case


def _vit(pool="cls"):
    return ViT(image_size=32, patch_size=8, num_classes=CLASSES, dim=64, depth=2, heads=4, mlp_dim=128,
               dropout=0.1, emb_dropout=0.1, pool=pool)


MODELS = {
    "vit": lambda: (_vit(), _img()),
    "simple_vit": lambda: (SimpleViT(image_size=32, patch_size=8, num_classes=CLASSES, dim=64, depth=2, heads=4,
                                     mlp_dim=128), _img()),
    "cait": lambda: (CaiT(image_size=32, patch_size=8, num_classes=CLASSES, dim=64, depth=2, cls_depth=1, heads=4,
                          mlp_dim=128, dropout=0.1, emb_dropout=0.1, layer_dropout=0.05), _img()),
    "cct": lambda: (CCT(img_size=(32, 32), embedding_dim=64, n_conv_layers=2, kernel_size=7, stride=2, padding=3,
                        pooling_kernel_size=3, pooling_stride=2, pooling_padding=1, num_layers=2, num_heads=4,
                        mlp_ratio=2.0, num_classes=CLASSES, positional_embedding="learnable"), _img()),
    "cross_vit": lambda: (CrossViT(image_size=32, num_classes=CLASSES, depth=2, sm_dim=32, sm_patch_size=8,
                                   sm_enc_depth=1, sm_enc_heads=2, sm_enc_mlp_dim=64, lg_dim=64, lg_patch_size=16,
                                   lg_enc_depth=1, lg_enc_heads=2, lg_enc_mlp_dim=64, cross_attn_depth=1,
                                   cross_attn_heads=2, dropout=0.1, emb_dropout=0.1), _img()),
    "cvt": lambda: (CvT(num_classes=CLASSES, s1_emb_dim=16, s2_emb_dim=32, s3_emb_dim=64, s3_depth=2), _img()),
    "deepvit": lambda: (DeepViT(image_size=32, patch_size=8, num_classes=CLASSES, dim=64, depth=2, heads=4,
                                mlp_dim=128, dropout=0.1, emb_dropout=0.1), _img()),
    "t2t": lambda: (T2TViT(dim=64, image_size=32, depth=2, heads=4, mlp_dim=128, num_classes=CLASSES,
                           t2t_layers=((7, 4), (3, 2), (3, 2))), _img()),
    "pit": lambda: (PiT(image_size=32, patch_size=4, dim=64, num_classes=CLASSES, depth=(1, 1, 1), heads=4,
                        mlp_dim=128, dropout=0.1, emb_dropout=0.1), _img()),
    "levit": lambda: (LeViT(image_size=64, num_classes=CLASSES, stages=3, dim=(32, 64, 96), depth=1, heads=(2, 4, 6),
                            mlp_mult=2, dropout=0.1), _img(64)),
    "max_vit": lambda: (MaxViT(num_classes=CLASSES, dim_conv_stem=16, dim=32, dim_head=16, depth=(1, 1),
                               window_size=4, mbconv_expansion_rate=2, mbconv_shrinkage_rate=0.25, dropout=0.1),
                        _img()),
    "mobile_vit": lambda: (MobileViT(image_size=(64, 64), dims=[96, 120, 144],
                                     channels=[16, 32, 48, 48, 64, 64, 80, 80, 96, 96, 384],
                                     num_classes=CLASSES), _img(64)),
    "twins_svt": lambda: (TwinsSVT(num_classes=CLASSES, s1_emb_dim=16, s1_patch_size=4, s1_local_patch_size=4,
                                   s1_global_k=4, s1_depth=1, s2_emb_dim=32, s2_patch_size=2, s2_local_patch_size=2,
                                   s2_global_k=2, s2_depth=1, s3_emb_dim=64, s3_patch_size=2, s3_local_patch_size=2,
                                   s3_global_k=2, s3_depth=1, s4_emb_dim=64, s4_patch_size=2, s4_local_patch_size=1,
                                   s4_global_k=1, s4_depth=1, peg_kernel_size=3, dropout=0.0), _img(64)),
    "regionvit": lambda: (RegionViT(dim=(16, 32, 64, 64), depth=(1, 1, 1, 1), window_size=4, num_classes=CLASSES,
                                    tokenize_local_3_conv=False, use_peg=False), _img(64)),
    "crossformer": lambda: (CrossFormer(num_classes=CLASSES, dim=(32, 64, 128, 256), depth=(1, 1, 1, 1),
                                        global_window_size=(4, 2, 1, 1), local_window_size=2), _img(64)),
    "nest": lambda: (NesT(image_size=32, patch_size=4, dim=32, heads=2, num_hierarchies=3,
                          block_repeats=(1, 1, 1), num_classes=CLASSES), _img()),
    "vit_3d": lambda: (ViT3D(image_size=32, frames=8, image_patch_size=8, frame_patch_size=2, num_classes=CLASSES,
                             dim=64, depth=2, heads=4, mlp_dim=128, dropout=0.1, emb_dropout=0.1),
                       torch.randn(2, 3, 8, 32, 32)),
    "simple_vit_1d": lambda: (SimpleViT1D(seq_len=64, patch_size=8, num_classes=CLASSES, dim=64, depth=2, heads=4,
                                          mlp_dim=128), torch.randn(2, 3, 64)),
}


def case_model(name="vit", train=False):
    torch.manual_seed(0)
    model, x = MODELS[name]()
    return _cls_case(model, x, train)


def case_navit(train=False):
    """NaViT over a batch of variable-resolution image groups (README: `v(images)` on a list of lists)."""
    torch.manual_seed(0)
    model = NaViT(image_size=32, patch_size=8, num_classes=CLASSES, dim=64, depth=2, heads=4, mlp_dim=128,
                  dropout=0.1, emb_dropout=0.1, token_dropout_prob=0.1)
    images = [[torch.randn(3, 32, 32), torch.randn(3, 16, 32)], [torch.randn(3, 32, 16)]]
    case = {"model": model, "args": (images,)}
    if train:
        labels = torch.randint(0, CLASSES, (3,))
        case["loss"] = lambda out: F.cross_entropy(out, labels)
    return case


def case_mae(train=True):
    """Masked autoencoder pretraining step (README: `loss = mae(images); loss.backward()`)."""
    torch.manual_seed(0)
    mae = MAE(encoder=_vit(pool="mean"), masking_ratio=0.75, decoder_dim=32, decoder_depth=1)
    case = {"model": mae, "args": (_img(),)}
    if train:
        case["loss"] = lambda loss: loss
    return case


def case_simmim(train=True):
    """SimMIM pretraining step (README: `loss = mim(images); loss.backward()`)."""
    torch.manual_seed(0)
    mim = SimMIM(encoder=_vit(pool="mean"), masking_ratio=0.5)
    case = {"model": mim, "args": (_img(),)}
    if train:
        case["loss"] = lambda loss: loss
    return case
