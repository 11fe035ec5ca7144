"""vector-quantize-pytorch 1.32.0 quantizers as `graphbreak check` cases (random init, small sizes).

Users drop a quantizer into an autoencoder/codec/tokenizer and compile the model around it; the README's calls
are followed: `quantized, indices, aux_loss = quantizer(x)` on (batch, seq, dim) sequences or
(batch, dim, h, w) feature maps. Eval cases run the quantizer in eval mode under no_grad; training cases
(`train=True`) run train mode, where the codebooks' EMA / k-means / dead-code updates happen, and backpropagate
reconstruction + the quantizer's auxiliary loss, as an autoencoder's step does. Sizes follow the README's
examples scaled down (dim 32, 64 positions, codebooks of 64) so CPU runs are quick.
"""

import torch
import torch.nn.functional as F
from vector_quantize_pytorch import (
    FSP,
    FSQ,
    LFQ,
    BinaryMapper,
    GroupedResidualVQ,
    HierarchicalVQ,
    LatentQuantize,
    RandomProjectionQuantizer,
    ResidualFSQ,
    ResidualLFQ,
    ResidualSimVQ,
    ResidualVQ,
    SimVQ,
    VectorQuantize,
)

DIM = 32


def _seq(dim=DIM, n=64, batch=2):
    g = torch.Generator().manual_seed(0)
    return torch.randn(batch, n, dim, generator=g)


def _fmap(dim=DIM, size=8, batch=2):
    g = torch.Generator().manual_seed(0)
    return torch.randn(batch, dim, size, size, generator=g)


def _case(quantizer, x, train, aux_index=2, **kwargs):
    """quantizer(x) -> (quantized, indices, aux_loss, ...); training: reconstruction + aux loss."""
    if train:
        x = x.clone().requires_grad_(True)  # the encoder output a quantizer sits behind carries grad
    case = {"model": quantizer, "args": (x,)}
    if kwargs:
        case["kwargs"] = kwargs
    if train:
        if aux_index is None:
            case["loss"] = lambda out: F.mse_loss(out[0], x)
        else:
            case["loss"] = lambda out: F.mse_loss(out[0], x) + out[aux_index].sum()
    return case


VQ_VARIANTS = {
    "basic": dict(decay=0.8, commitment_weight=1.0),
    "cosine": dict(use_cosine_sim=True),
    "codebook_dim": dict(codebook_dim=8),
    "dead_code": dict(threshold_ema_dead_code=2),
    "rotation_trick": dict(rotation_trick=True),
    "directional_reparam": dict(directional_reparam=True, directional_reparam_variance=5e-3, threshold_ema_dead_code=2),
    "kmeans": dict(kmeans_init=True, kmeans_iters=4),
    "stochastic": dict(stochastic_sample_codes=True, sample_codebook_temp=0.1),
}


def case_vector_quantize(variant="basic", train=False):
    torch.manual_seed(0)
    vq = VectorQuantize(dim=DIM, codebook_size=64, **VQ_VARIANTS[variant])
    return _case(vq, _seq(), train)


def case_vector_quantize_fmap(heads=1, train=False):
    """Image feature maps (accept_image_fmap), with the orthogonal regulariser, or multi-head codebooks."""
    torch.manual_seed(0)
    if heads == 1:
        vq = VectorQuantize(dim=DIM, codebook_size=64, accept_image_fmap=True, orthogonal_reg_weight=10,
                            orthogonal_reg_max_codes=32, orthogonal_reg_active_codes_only=False)
    else:
        vq = VectorQuantize(dim=DIM, codebook_dim=8, heads=heads, separate_codebook_per_head=True, codebook_size=64,
                            accept_image_fmap=True)
    return _case(vq, _fmap(), train)


def case_residual_vq(variant="basic", train=False):
    torch.manual_seed(0)
    kw = {
        "basic": {},
        "kmeans": dict(kmeans_init=True, kmeans_iters=4),
        "stochastic_shared": dict(stochastic_sample_codes=True, sample_codebook_temp=0.1, shared_codebook=True),
    }[variant]
    rvq = ResidualVQ(dim=DIM, num_quantizers=4, codebook_size=64, **kw)
    return _case(rvq, _seq(), train)


def case_grouped_residual_vq(train=False):
    torch.manual_seed(0)
    rvq = GroupedResidualVQ(dim=DIM, num_quantizers=4, groups=2, codebook_size=64)
    return _case(rvq, _seq(), train)


def case_random_projection():
    torch.manual_seed(0)
    quantizer = RandomProjectionQuantizer(dim=DIM, num_codebooks=4, codebook_dim=16, codebook_size=64)
    return {"model": quantizer, "args": (_seq(),)}


def case_sim_vq(residual=False, train=False):
    torch.manual_seed(0)
    if residual:
        q = ResidualSimVQ(dim=DIM, num_quantizers=4, codebook_size=64, rotation_trick=True)
    else:
        q = SimVQ(dim=DIM, codebook_size=64, rotation_trick=True)
    return _case(q, _seq(), train)


def case_fsq(train=False):
    torch.manual_seed(0)
    q = FSQ(levels=[8, 5, 5, 5])
    return _case(q, _seq(dim=4), train, aux_index=None)


def case_residual_fsq(train=False):
    torch.manual_seed(0)
    q = ResidualFSQ(dim=DIM, levels=[8, 5, 5, 3], num_quantizers=4)
    return _case(q, _seq(), train, aux_index=None)


def case_fsp(train=False):
    torch.manual_seed(0)
    q = FSP(levels=[8, 5, 5, 5], act_name="normal", quantize_rate=0.5, vector_norm="var")
    return _case(q, _seq(dim=4), train)


def case_lfq(codebooks=1, train=False):
    torch.manual_seed(0)
    if codebooks == 1:
        q = LFQ(codebook_size=2**16, dim=16, entropy_loss_weight=0.1, diversity_gamma=1.0)
        x = _fmap(dim=16)
        return _case(q, x, train, inv_temperature=100.0)
    q = LFQ(codebook_size=4096, dim=16, num_codebooks=codebooks)
    return _case(q, _fmap(dim=16), train)


def case_residual_lfq(train=False):
    torch.manual_seed(0)
    q = ResidualLFQ(dim=DIM, codebook_size=256, num_quantizers=4)
    return _case(q, _seq(), train)


def case_latent_quantize(train=False):
    torch.manual_seed(0)
    q = LatentQuantize(levels=[5, 5, 8], dim=16, commitment_loss_weight=0.1, quantization_loss_weight=0.1)
    return _case(q, _fmap(dim=16), train)


def case_hierarchical_vq(train=False):
    torch.manual_seed(0)
    q = HierarchicalVQ(dim=DIM, codebook_size=64, scales=[1, 2, 4, 8], accept_image_fmap=True)
    return _case(q, _fmap(), train)


def case_binary_mapper(train=False):
    torch.manual_seed(0)
    q = BinaryMapper(bits=8)
    logits = torch.randn(2, 16, 8, requires_grad=train)
    case = {"model": q, "args": (logits,)}
    if train:
        case["loss"] = lambda out: out[0].float().pow(2).mean() + out[1].sum()
    return case


class _Autoencoder(torch.nn.Module):
    """A small conv autoencoder around a quantizer, as users build a tokenizer (encode -> quantize -> decode)."""

    def __init__(self, quantizer, dim=DIM):
        super().__init__()
        self.enc = torch.nn.Conv2d(3, dim, 3, padding=1)
        self.quantizer = quantizer
        self.dec = torch.nn.Conv2d(dim, 3, 3, padding=1)

    def forward(self, img):
        quantized, indices, aux = self.quantizer(self.enc(img))
        return self.dec(quantized), indices, aux


def case_autoencoder(quantizer="vq", train=False):
    torch.manual_seed(0)
    q = {
        "vq": lambda: VectorQuantize(dim=DIM, codebook_size=64, accept_image_fmap=True),
        "lfq": lambda: LFQ(codebook_size=2**8, dim=DIM),
    }[quantizer]()
    model = _Autoencoder(q)
    img = torch.randn(2, 3, 16, 16)
    case = {"model": model, "args": (img,)}
    if train:
        case["loss"] = lambda out: F.mse_loss(out[0], img) + out[2].sum()
    return case
