"""k-diffusion 0.1.1.post1 models and denoiser wrappers as `graphbreak check` cases (random weights).

Models are built as the library's train.py builds them: `config.load_config(dict)` → `config.make_model`
→ `config.make_denoiser_wrapper(config)(inner_model)`. Users compile the wrapped model that samplers call
(`denoiser(x, sigma)`), and training compiles the loss step `denoiser.loss(reals, noise, sigma)` (the mean
of the per-sample losses is the training loss, as in train.py). External wrappers (VDenoiser,
DiscreteEpsDDPMDenoiser / CompVisDenoiser) wrap a small stand-in network built here; the wrapper code is
the library's. Configs are shrunk versions of the repository's configs (32 px images, narrow channels).
"""

import os

# k-diffusion wraps a few of its own functions in torch.compile (inductor) unless this is "0"; the case
# compiles the whole model itself, so the inner compile is switched off (the library documents the flag).
os.environ.setdefault("K_DIFFUSION_USE_COMPILE", "0")

import torch  # noqa: E402
from k_diffusion import config as kconfig
from k_diffusion import external, sampling

SIZE = 16


def _config(kind="image_v1", loss_config="karras", has_variance=False, augment=True, weighting="karras", scales=1):
    if kind == "image_v1":
        model = {
            "type": "image_v1",
            "input_channels": 3,
            "input_size": [SIZE, SIZE],
            "patch_size": 1,
            "mapping_out": 64,
            "depths": [1, 1],
            "channels": [32, 64],
            "self_attn_depths": [False, True],
            "has_variance": has_variance,
            "augment_wrapper": augment,
        }
    else:
        model = {
            "type": "image_transformer_v1",
            "input_channels": 3,
            "input_size": [SIZE, SIZE],
            "patch_size": [2, 2],
            "width": 64,
            "depth": 2,
        }
    model.update({
        "dropout_rate": 0.0,
        "sigma_data": 0.5,
        "sigma_min": 1e-2,
        "sigma_max": 80,
        "loss_config": loss_config,
        "loss_weighting": weighting,
        "loss_scales": scales,
        "sigma_sample_density": {"type": "lognormal", "mean": -1.2, "std": 1.2},
    })
    return kconfig.load_config({"model": model, "dataset": {"type": "imagefolder", "num_classes": 0}})


def _denoiser(cfg):
    torch.manual_seed(0)
    inner = kconfig.make_model(cfg)
    return kconfig.make_denoiser_wrapper(cfg)(inner)


class _LossStep(torch.nn.Module):
    """train.py's step: `losses = model.loss(reals, noise, sigma, **extra_args)`."""

    def __init__(self, denoiser):
        super().__init__()
        self.denoiser = denoiser

    def forward(self, reals, noise, sigma, **extra):
        return self.denoiser.loss(reals, noise, sigma, **extra)


def _batch(batch=2):
    return torch.randn(batch, 3, SIZE, SIZE)


def _sigma(batch=2):
    return torch.tensor([0.5, 3.0][:batch])


def case_denoise(kind="image_v1", has_variance=False):
    cfg = _config(kind, has_variance=has_variance)
    return {"model": _denoiser(cfg), "args": (_batch(), _sigma())}


def case_train_loss(kind="image_v1", loss_config="karras", has_variance=False, weighting="karras", scales=1):
    cfg = _config(kind, loss_config=loss_config, has_variance=has_variance, weighting=weighting, scales=scales)
    step = _LossStep(_denoiser(cfg))
    kwargs = {}
    if kind == "image_v1" and cfg["model"]["augment_wrapper"]:
        kwargs["aug_cond"] = torch.zeros(2, 9)
    return {"model": step, "args": (_batch(), torch.randn(2, 3, SIZE, SIZE), _sigma()), "kwargs": kwargs,
            "loss": lambda losses: losses.mean()}


class _TinyEpsNet(torch.nn.Module):
    """A stand-in eps/v-prediction network (the wrapped model's role); the wrappers around it are k-diffusion's."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 3, 3, padding=1)
        self.t_proj = torch.nn.Linear(1, 3)
        self.register_buffer("alphas_cumprod", torch.cumprod(1 - torch.linspace(1e-4, 2e-2, 1000), 0))

    def forward(self, x, t, **kwargs):
        return self.conv(x) + self.t_proj(t.float()[:, None])[:, :, None, None]

    def apply_model(self, x, t, cond=None):
        return self(x, t)


def case_vdenoiser(train=False):
    torch.manual_seed(0)
    model = external.VDenoiser(_TinyEpsNet())
    if train:
        return {"model": _LossStep(model), "args": (_batch(), torch.randn(2, 3, SIZE, SIZE), _sigma()),
                "loss": lambda losses: losses.mean()}
    return {"model": model, "args": (_batch(), _sigma())}


def case_compvis_denoiser(quantize=False):
    torch.manual_seed(0)
    model = external.CompVisDenoiser(_TinyEpsNet(), quantize=quantize)
    return {"model": model, "args": (_batch(), _sigma()), "kwargs": {"cond": None}}


def case_discrete_eps_loss():
    torch.manual_seed(0)
    inner = _TinyEpsNet()
    model = external.DiscreteEpsDDPMDenoiser(inner, inner.alphas_cumprod, quantize=False)
    return {"model": _LossStep(model), "args": (_batch(), torch.randn(2, 3, SIZE, SIZE), _sigma()),
            "loss": lambda losses: losses.mean()}


def case_sampler_step(sampler="euler"):
    """One sampler call over a 3-step schedule with the compiled denoiser (what the sampling loop calls)."""
    denoiser = _denoiser(_config("image_v1", augment=False))
    sigmas = sampling.get_sigmas_karras(3, 0.02, 80.0)
    fn = {"euler": sampling.sample_euler, "dpmpp_2m": sampling.sample_dpmpp_2m, "heun": sampling.sample_heun}[sampler]

    def sample(x):
        return fn(denoiser, x, sigmas, disable=True)

    return {"model": sample, "args": (torch.randn(1, 3, SIZE, SIZE) * 80.0,)}
