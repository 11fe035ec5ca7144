"""demucs 4.1.0 source-separation models as `graphbreak check` cases (random weights, small configs).

Users compile the separation model (`HTDemucs`, `HDemucs`, `Demucs`) and call it on a waveform batch
[B, channels, time]; training regresses the separated sources [B, sources, channels, time] with L1, as
demucs' solver does. `apply_model` (chunked, shifted inference) is compiled as users wrap it too.
Sizes: 8 kHz, 1 s segments, a few channels, so CPU runs are quick.
"""

import torch
import torch.nn.functional as F
from demucs.apply import apply_model
from demucs.demucs import Demucs
from demucs.hdemucs import HDemucs
from demucs.htdemucs import HTDemucs
from demucs.spec import ispectro, spectro
from demucs.transformer import CrossTransformerEncoder

SOURCES = ["drums", "bass", "other", "vocals"]
RATE = 8000


def _htdemucs(**kw):
    torch.manual_seed(0)
    args = dict(channels=8, depth=2, nfft=512, t_layers=1, t_heads=2, bottom_channels=0, samplerate=RATE, segment=1,
                dconv_comp=4)
    args.update(kw)
    return HTDemucs(SOURCES, **args)


def _wave(batch=1, length=RATE):
    return torch.randn(batch, 2, length)


def _train_case(model, mix):
    target = torch.randn(mix.shape[0], len(SOURCES), *mix.shape[1:])
    return {"model": model, "args": (mix,), "loss": lambda est: F.l1_loss(est, target)}


def case_htdemucs(train=False, cross_first=False):
    model = _htdemucs(t_cross_first=cross_first)
    if train:
        return _train_case(model, _wave(2))
    return {"model": model, "args": (_wave(1, RATE // 2),)}


def case_htdemucs_sparse_attn():
    model = _htdemucs(t_sparse_self_attn=False, t_emb="cape", t_norm_in_group=True, t_group_norm=True)
    return {"model": model, "args": (_wave(1),)}


def case_hdemucs(train=False, hybrid_old=False):
    torch.manual_seed(0)
    model = HDemucs(SOURCES, channels=4, depth=5, nfft=1024, samplerate=RATE, segment=1, hybrid_old=hybrid_old,
                    dconv_comp=4)
    if train:
        return _train_case(model, _wave(2))
    return {"model": model, "args": (_wave(1),)}


def case_demucs(train=False, lstm=True):
    torch.manual_seed(0)
    model = Demucs(SOURCES, channels=8, depth=3, lstm_layers=1 if lstm else 0, samplerate=RATE, segment=1,
                   dconv_comp=4, resample=False)
    mix = _wave(2 if train else 1, model.valid_length(RATE))
    if train:
        return _train_case(model, mix)
    return {"model": model, "args": (mix,)}


def case_apply_model(shifts=1):
    model = _htdemucs().eval()

    def separate(mix):
        return apply_model(model, mix, shifts=shifts, split=True, overlap=0.25, progress=False, device="cpu")

    return {"model": separate, "args": (_wave(1, RATE + RATE // 2),)}


def case_cross_transformer(train=False):
    torch.manual_seed(0)
    model = CrossTransformerEncoder(dim=16, num_heads=2, num_layers=2, emb="sin", max_positions=1000)
    freq = torch.randn(1, 16, 8, 20)
    time = torch.randn(1, 16, 40)
    case = {"model": model, "args": (freq, time)}
    if train:
        case["loss"] = lambda out: out[0].pow(2).mean() + out[1].pow(2).mean()
    return case


def case_spectro_roundtrip():
    def roundtrip(wave):
        z = spectro(wave, n_fft=512, hop_length=128)
        return ispectro(z, hop_length=128, length=wave.shape[-1])

    return {"model": roundtrip, "args": (torch.randn(2, 2, RATE),)}
