"""denoising-diffusion-pytorch 2.3.4 models as `graphbreak check` cases (random init, small sizes).

Users follow the README: build `Unet(dim=64, dim_mults=(1, 2, 4, 8), flash_attn=True)`, wrap it in
`GaussianDiffusion(model, image_size=128, timesteps=1000)` and train with `loss = diffusion(training_images);
loss.backward()` (the Trainer does exactly this step); the other diffusion wrappers of the package
(1D, learned / continuous-time / weighted-objective / elucidated diffusion, classifier-free guidance, simple
diffusion's UViT) and the Karras U-Nets are used the same way. Compiling the denoiser alone (`unet(x, t)`) is the
eval case; a DDIM sampling call (`diffusion.sample(batch_size=...)`) with a few steps is the sampling case.
Sizes are scaled down (dim 16, 16-32 px images, 64-step 1D sequences) so CPU runs are quick.
"""

import torch
import torch.nn.functional as F
from denoising_diffusion_pytorch import (
    ContinuousTimeGaussianDiffusion,
    ElucidatedDiffusion,
    GaussianDiffusion,
    GaussianDiffusion1D,
    KarrasUnet,
    KarrasUnet1D,
    LearnedGaussianDiffusion,
    Unet,
    Unet1D,
    VParamContinuousTimeGaussianDiffusion,
    WeightedObjectiveGaussianDiffusion,
)
from denoising_diffusion_pytorch import classifier_free_guidance as cfg
from denoising_diffusion_pytorch import simple_diffusion

SIZE = 16


def _images(batch=2, channels=3, size=SIZE):
    g = torch.Generator().manual_seed(0)
    return torch.rand(batch, channels, size, size, generator=g)


def _unet(**kwargs):
    return Unet(dim=16, dim_mults=(1, 2), attn_dim_head=8, attn_heads=2, **kwargs)


def _train_case(model, *args, **kwargs):
    case = {"model": model, "args": args, "loss": lambda loss: loss}
    if kwargs:
        case["kwargs"] = kwargs
    return case


def case_unet(flash_attn=False, train=False):
    """The denoiser alone, as compiled inside a training loop: unet(noisy, t) -> prediction."""
    torch.manual_seed(0)
    model = _unet(flash_attn=flash_attn)
    x, t = torch.randn(2, 3, SIZE, SIZE), torch.randint(0, 1000, (2,))
    case = {"model": model, "args": (x, t)}
    if train:
        target = torch.randn_like(x)
        case["loss"] = lambda out: F.mse_loss(out, target)
    return case


def case_gaussian_diffusion(objective="pred_v"):
    """README's training step: loss = diffusion(training_images)."""
    torch.manual_seed(0)
    diffusion = GaussianDiffusion(_unet(flash_attn=True), image_size=SIZE, timesteps=100, objective=objective)
    return _train_case(diffusion, _images())


class _Sample(torch.nn.Module):
    """diffusion.sample(batch_size=...) (DDIM with sampling_timesteps < timesteps)."""

    def __init__(self, diffusion):
        super().__init__()
        self.diffusion = diffusion

    def forward(self, batch_size):
        return self.diffusion.sample(batch_size=batch_size)


def case_gaussian_diffusion_sample():
    torch.manual_seed(0)
    diffusion = GaussianDiffusion(_unet(), image_size=SIZE, timesteps=20, sampling_timesteps=3)
    return {"model": _Sample(diffusion), "args": (2,)}


def case_diffusion_1d():
    """README's 1D step: Unet1D in GaussianDiffusion1D, loss = diffusion(training_seq)."""
    torch.manual_seed(0)
    model = Unet1D(dim=16, dim_mults=(1, 2), channels=8, attn_dim_head=8, attn_heads=2)
    diffusion = GaussianDiffusion1D(model, seq_length=32, timesteps=100, objective="pred_v")
    return _train_case(diffusion, torch.rand(2, 8, 32))


def case_learned_gaussian_diffusion():
    torch.manual_seed(0)
    diffusion = LearnedGaussianDiffusion(_unet(learned_variance=True), image_size=SIZE, timesteps=100)
    return _train_case(diffusion, _images())


def case_weighted_objective_diffusion():
    torch.manual_seed(0)
    model = Unet(dim=16, dim_mults=(1, 2), attn_dim_head=8, attn_heads=2, out_dim=3 * 2 + 2)
    diffusion = WeightedObjectiveGaussianDiffusion(model, image_size=SIZE, timesteps=100)
    return _train_case(diffusion, _images())


def case_continuous_time_diffusion(v_param=False):
    torch.manual_seed(0)
    model = _unet(random_fourier_features=True)
    cls = VParamContinuousTimeGaussianDiffusion if v_param else ContinuousTimeGaussianDiffusion
    diffusion = cls(model, image_size=SIZE, num_sample_steps=10)
    return _train_case(diffusion, _images())


def case_elucidated_diffusion():
    torch.manual_seed(0)
    diffusion = ElucidatedDiffusion(_unet(random_fourier_features=True), image_size=SIZE, channels=3, num_sample_steps=4)
    return _train_case(diffusion, _images())


def case_classifier_free_guidance(train=True):
    """classifier_free_guidance: Unet(num_classes=...) in its GaussianDiffusion; loss = diffusion(images, classes=...)."""
    torch.manual_seed(0)
    model = cfg.Unet(dim=16, dim_mults=(1, 2), num_classes=4, cond_drop_prob=0.5, attn_dim_head=8, attn_heads=2)
    if not train:
        x, t = torch.randn(2, 3, SIZE, SIZE), torch.randint(0, 100, (2,))
        return {"model": model, "args": (x, t, torch.tensor([1, 2]))}
    diffusion = cfg.GaussianDiffusion(model, image_size=SIZE, timesteps=100)
    return _train_case(diffusion, _images(), classes=torch.tensor([1, 2]))


def case_simple_diffusion():
    """simple_diffusion: UViT denoiser in its GaussianDiffusion (continuous time, v objective)."""
    torch.manual_seed(0)
    model = simple_diffusion.UViT(dim=16, dim_mults=(1, 2), vit_depth=1, attn_dim_head=8, attn_heads=2)
    diffusion = simple_diffusion.GaussianDiffusion(model, image_size=SIZE, num_sample_steps=10)
    return _train_case(diffusion, _images())


def case_karras_unet(train=False):
    """KarrasUnet (EDM2's magnitude-preserving U-Net): unet(x, time=..., class_labels=...)."""
    torch.manual_seed(0)
    unet = KarrasUnet(image_size=SIZE, dim=16, dim_max=32, num_classes=4, channels=3, num_downsamples=2,
                      num_blocks_per_stage=1, attn_res=(8,), attn_dim_head=8)
    x = torch.randn(2, 3, SIZE, SIZE)
    case = {"model": unet, "args": (x,), "kwargs": {"time": torch.ones(2), "class_labels": torch.tensor([0, 3])}}
    if train:
        case["loss"] = lambda out: F.mse_loss(out, torch.zeros_like(out))
    return case


def case_karras_unet_1d(train=True):
    torch.manual_seed(0)
    unet = KarrasUnet1D(seq_len=32, dim=16, dim_max=32, channels=2, num_downsamples=2, num_blocks_per_stage=1,
                        attn_res=(8,), attn_dim_head=8)
    x = torch.randn(2, 2, 32)
    case = {"model": unet, "args": (x,), "kwargs": {"time": torch.ones(2)}}
    if train:
        case["loss"] = lambda out: F.mse_loss(out, torch.zeros_like(out))
    return case
