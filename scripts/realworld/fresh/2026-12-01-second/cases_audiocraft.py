"""audiocraft 1.3.0 models as `graphbreak check` cases (random weights, the library's own debug-size configs).

Users compile MusicGen's language model (LMModel) and the EnCodec compression model (EncodecModel: SEANet
encoder/decoder + residual vector quantizer), as audiocraft's solvers run them: the compression solver calls
`model(x)` (QuantizedResult: reconstruction + quantizer penalty) and trains on reconstruction + penalty; the
MusicGen solver calls `lm.compute_predictions(codes, conditions=[], condition_tensors=...)` and trains with
cross-entropy over the valid (masked) codebook positions. The compression model is the library's own
`builders.get_debug_compression_model` (tiny, random init); the LM is `get_debug_lm_model`'s configuration
without its text conditioner (its tokenizer downloads a spaCy model), i.e. unconditional generation.
"""

import torch
import torch.nn.functional as F
from audiocraft.models import builders
from audiocraft.models.lm import LMModel
from audiocraft.modules.codebooks_patterns import DelayedPatternProvider
from audiocraft.modules.conditioners import ConditionFuser, ConditioningProvider
from audiocraft.modules.seanet import SEANetDecoder, SEANetEncoder
from audiocraft.modules.transformer import StreamingTransformer


def _compression():
    torch.manual_seed(0)
    return builders.get_debug_compression_model(sample_rate=16000)


def _wave(batch=2, seconds=0.2):
    g = torch.Generator().manual_seed(0)
    return torch.randn(batch, 1, int(16000 * seconds), generator=g)


def case_encodec(train=False):
    model = _compression()
    x = _wave()
    case = {"model": model, "args": (x,)}
    if train:
        case["loss"] = lambda q: F.l1_loss(q.x, x) + q.penalty
    return case


def case_encodec_encode_decode():
    model = _compression()

    def roundtrip(x):
        codes, scale = model.encode(x)
        return model.decode(codes, scale)

    return {"model": roundtrip, "args": (_wave(),)}


def case_seanet(train=False):
    torch.manual_seed(0)
    kw = dict(n_filters=4, n_residual_layers=1, dimension=32, ratios=[8, 5, 4], lstm=1)

    class _AutoEncoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = SEANetEncoder(**kw)
            self.decoder = SEANetDecoder(**kw)

        def forward(self, x):
            return self.decoder(self.encoder(x))

    x = _wave(seconds=0.1)
    case = {"model": _AutoEncoder(), "args": (x,)}
    if train:
        case["loss"] = lambda y: F.l1_loss(y[..., : x.shape[-1]], x)
    return case


def _lm():
    """builders.get_debug_lm_model's LM without its text conditioner (whose whitespace tokenizer loads a spaCy
    model from the network): an unconditional MusicGen LM of the same size (delayed pattern, 4 codebooks)."""
    torch.manual_seed(0)
    fuser = ConditionFuser({"cross": [], "prepend": [], "sum": [], "input_interpolate": []})
    return LMModel(DelayedPatternProvider(n_q=4), ConditioningProvider({}), fuser, n_q=4, card=400, dim=16,
                   num_heads=4, custom=True, num_layers=2, cross_attention=False, causal=True)


def _codes(lm, batch=2, steps=12):
    g = torch.Generator().manual_seed(0)
    return torch.randint(0, lm.card, (batch, lm.num_codebooks, steps), generator=g)


class _LMStep(torch.nn.Module):
    """The MusicGen solver's step: compute_predictions on the codes (pattern interleave, LM, de-interleave)."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, codes):
        out = self.lm.compute_predictions(codes, conditions=[], condition_tensors={})
        return out.logits, out.mask


def case_lm(train=False):
    lm = _lm()
    codes = _codes(lm)
    case = {"model": _LMStep(lm), "args": (codes,)}
    if train:
        def ce(out):
            logits, mask = out
            return F.cross_entropy(logits[mask], codes[mask])

        case["loss"] = ce
    return case


def case_lm_forward():
    """LMModel.forward on a [B, K, T] sequence with (empty) precomputed condition tensors (generation's step)."""
    lm = _lm()
    return {"model": lm, "args": (_codes(lm), []), "kwargs": {"condition_tensors": {}}}


def case_streaming_transformer(train=False):
    torch.manual_seed(0)
    model = StreamingTransformer(d_model=32, num_heads=4, num_layers=2, dim_feedforward=64, causal=True,
                                 positional_embedding="sin")
    x = torch.randn(2, 16, 32)
    case = {"model": model, "args": (x,)}
    if train:
        case["loss"] = lambda y: y.pow(2).mean()
    return case
