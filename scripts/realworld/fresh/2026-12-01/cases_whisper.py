"""openai-whisper 20250625 models as `graphbreak check` cases (random weights, tiny dimensions).

Users compile the Whisper model (or its encoder / decoder) and call it as the library's decoding does:
`model.embed_audio(mel)`, `model.logits(tokens, audio_features)` with the kv-cache hooks, and
`model.detect_language(mel)`; training fine-tunes `model(mel, tokens)` with cross-entropy on the next token.
"""

import torch
import torch.nn.functional as F
import whisper
from whisper.model import ModelDimensions, Whisper

N_MELS = 80
AUDIO_CTX = 50  # 100 mel frames


def _model(layers=2, n_vocab=51865):
    torch.manual_seed(0)
    dims = ModelDimensions(
        n_mels=N_MELS,
        n_audio_ctx=AUDIO_CTX,
        n_audio_state=64,
        n_audio_head=4,
        n_audio_layer=layers,
        n_vocab=n_vocab,
        n_text_ctx=64,
        n_text_state=64,
        n_text_head=4,
        n_text_layer=layers,
    )
    return Whisper(dims)


def _mel(batch=2):
    return torch.randn(batch, N_MELS, 2 * AUDIO_CTX)


def case_encoder(train=False):
    model = _model()
    case = {"model": model.encoder, "args": (_mel(),)}
    if train:
        case["loss"] = lambda out: out.float().pow(2).mean()
    return case


def case_decoder(train=False):
    model = _model()
    tokens = torch.randint(0, 51865, (2, 12))
    audio = torch.randn(2, AUDIO_CTX, 64)
    case = {"model": model.decoder, "args": (tokens, audio)}
    if train:
        target = torch.randint(0, 51865, (2, 12))
        case["loss"] = lambda logits: F.cross_entropy(logits.transpose(1, 2), target)
    return case


def case_whisper(train=False):
    model = _model()
    tokens = torch.randint(0, 51865, (2, 12))
    case = {"model": model, "args": (_mel(), tokens)}
    if train:
        target = torch.randint(0, 51865, (2, 12))
        case["loss"] = lambda logits: F.cross_entropy(logits.transpose(1, 2), target)
    return case


class _CachedDecodeStep(torch.nn.Module):
    """One incremental decoding step as whisper.decoding's PyTorchInference runs it (kv-cache hooks)."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.kv_cache, self.hooks = model.install_kv_cache_hooks()

    def forward(self, tokens, audio_features):
        self.kv_cache.clear()
        logits = self.model.decoder(tokens, audio_features, kv_cache=self.kv_cache)
        nxt = logits[:, -1:].argmax(-1)
        more = self.model.decoder(nxt, audio_features, kv_cache=self.kv_cache)
        return logits, more


def case_decoder_kv_cache():
    model = _model()
    tokens = torch.randint(0, 51865, (2, 5))
    audio = torch.randn(2, AUDIO_CTX, 64)
    return {"model": _CachedDecodeStep(model), "args": (tokens, audio)}


def case_logits():
    model = _model()
    tokens = torch.randint(0, 51865, (2, 7))
    return {"model": model.logits, "args": (tokens, model.embed_audio(_mel()).detach())}


def case_detect_language():
    model = _model()
    return {"model": model.detect_language, "args": (_mel(1),)}


def case_log_mel_spectrogram():
    audio = torch.randn(16000)
    return {"model": whisper.log_mel_spectrogram, "args": (audio,)}


def case_pad_or_trim_mel():
    audio = torch.randn(8000)

    def features(samples):
        return whisper.log_mel_spectrogram(whisper.pad_or_trim(samples, 16000), n_mels=N_MELS)

    return {"model": features, "args": (audio,)}
