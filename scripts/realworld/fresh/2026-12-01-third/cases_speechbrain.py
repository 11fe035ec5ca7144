"""speechbrain 1.1.2 models as `graphbreak check` cases (random init; no pretrained hub models downloaded).

speechbrain's Brain compiles the modules a recipe's hparams name (`--compile`, `compile_module_keys`), and those
modules are the lobes in `speechbrain.lobes.models` run inside the recipe's compute_forward / compute_objectives.
The cases follow the recipes: speaker embedding (Fbank -> mean/var norm -> ECAPA-TDNN / x-vector / ResNet ->
classifier, AAM-softmax or NLL loss), CTC ASR (CRDNN), Transformer / Conformer ASR (joint CTC + seq2seq loss),
ContextNet encoder, the Sepformer separator (dual-path Encoder / Dual_Path_Model / Decoder, SI-SNR with PIT),
an RNN language model, and the Fbank front end on its own. Eval cases run eval mode under no_grad; training cases
run train mode and backward. Inputs are short (0.5 s at 16 kHz, 40-80 filterbank features) and models small.
"""

import sys

import torch
import torch.nn.functional as F
import speechbrain.nnet.losses as sb_losses
from speechbrain.lobes.features import Fbank
from speechbrain.lobes.models import ECAPA_TDNN as ecapa
from speechbrain.lobes.models import ResNet as resnet
from speechbrain.lobes.models import Xvector as xvector
from speechbrain.lobes.models.ContextNet import ContextNet
from speechbrain.lobes.models.CRDNN import CRDNN
from speechbrain.lobes.models.dual_path import Decoder, Dual_Path_Model, Encoder, SBTransformerBlock
from speechbrain.lobes.models.RNNLM import RNNLM
from speechbrain.lobes.models.transformer.TransformerASR import TransformerASR
from speechbrain.nnet.linear import Linear
from speechbrain.processing.features import InputNormalization
from speechbrain.utils.importutils import LazyModule

SPEAKERS = 5


def _drop_unloadable_lazy_modules():
    """speechbrain registers its optional integrations (flair, Hugging Face, ...) in sys.modules as lazy stubs
    whose attribute access raises ImportError when the integration's package is missing (not AttributeError,
    so `getattr(module, "__file__", None)` raises). The check harness reads `__file__` of every module in
    sys.modules after building the case; drop the stubs whose targets cannot be imported here (none of them
    is used by the models below). No model code is touched."""
    for name, module in list(sys.modules.items()):
        if isinstance(module, LazyModule):
            try:
                module.ensure_module(1)
            except Exception:
                del sys.modules[name]


_drop_unloadable_lazy_modules()


def _wavs(batch=2, samples=8000):
    g = torch.Generator().manual_seed(0)
    return torch.randn(batch, samples, generator=g) * 0.1, torch.tensor([1.0, 0.8])


class _SpeakerStep(torch.nn.Module):
    """Speaker recipe: feats = Fbank(wav); norm; emb = embedding_model(feats, lens); logits = classifier(emb)."""

    def __init__(self, embedding, classifier, n_mels):
        super().__init__()
        self.compute_features = Fbank(n_mels=n_mels)
        self.mean_var_norm = InputNormalization(norm_type="sentence", std_norm=False)
        self.embedding_model = embedding
        self.classifier = classifier

    def forward(self, wavs, lens):
        feats = self.compute_features(wavs)
        feats = self.mean_var_norm(feats, lens)
        embeddings = self.embedding_model(feats, lens)
        return self.classifier(embeddings)


def case_speaker(model="ecapa", train=False):
    torch.manual_seed(0)
    if model == "ecapa":
        emb = ecapa.ECAPA_TDNN(80, channels=[64, 64, 64, 64, 192], lin_neurons=64, attention_channels=32,
                               se_channels=32)
        cls = ecapa.Classifier(input_size=64, out_neurons=SPEAKERS)
        step, n_mels = _SpeakerStep(emb, cls, 80), 80
    elif model == "xvector":
        emb = xvector.Xvector(in_channels=24, tdnn_channels=[64, 64, 64, 64, 128], lin_neurons=64)
        cls = xvector.Classifier(input_shape=[None, None, 64], lin_neurons=64, out_neurons=SPEAKERS)
        step, n_mels = _SpeakerStep(emb, cls, 24), 24
    else:
        emb = resnet.ResNet(input_size=80, channels=[16, 16, 32, 32], block_sizes=[1, 1, 1, 1], lin_neurons=64)
        cls = resnet.Classifier(input_size=64, out_neurons=SPEAKERS)
        step, n_mels = _SpeakerStep(emb, cls, 80), 80
    wavs, lens = _wavs()
    case = {"model": step, "args": (wavs, lens)}
    if train:
        labels = torch.tensor([[1], [3]])
        if model == "xvector":
            case["loss"] = lambda out: sb_losses.nll_loss(out, labels)
        else:
            aam = sb_losses.LogSoftmaxWrapper(sb_losses.AdditiveAngularMargin(margin=0.2, scale=30))
            case["loss"] = lambda out: aam(out, labels)
    return case


class _CTCStep(torch.nn.Module):
    """CTC ASR recipe: Fbank -> norm -> encoder -> linear -> log_softmax; ctc_loss in compute_objectives."""

    def __init__(self, encoder, enc_dim, vocab):
        super().__init__()
        self.compute_features = Fbank(n_mels=40)
        self.normalize = InputNormalization(norm_type="global")
        self.enc = encoder
        self.ctc_lin = Linear(input_size=enc_dim, n_neurons=vocab)

    def forward(self, wavs, lens):
        feats = self.normalize(self.compute_features(wavs), lens)
        x = self.enc(feats)
        return F.log_softmax(self.ctc_lin(x), dim=-1)


def _with_global_stats(step, *args):
    """Global input normalization has statistics once training has run; an eval step runs after that: accumulate
    them with one train-mode pass first (no gradients)."""
    step.train()
    with torch.no_grad():
        step(*args)
    step.eval()


def _ctc_case(step, train, vocab=20):
    wavs, lens = _wavs()
    if not train:
        _with_global_stats(step, wavs, lens)
    case = {"model": step, "args": (wavs, lens)}
    if train:
        tokens = torch.randint(1, vocab, (2, 5))
        token_lens = torch.tensor([1.0, 0.8])
        case["loss"] = lambda p: sb_losses.ctc_loss(p, tokens, lens, token_lens, blank_index=0)
    return case


def case_crdnn_ctc(train=False):
    torch.manual_seed(0)
    enc = CRDNN(input_shape=[None, None, 40], cnn_blocks=1, cnn_channels=(16,), time_pooling=True,
                rnn_layers=1, rnn_neurons=32, dnn_blocks=1, dnn_neurons=32)
    return _ctc_case(_CTCStep(enc, 32, 20), train)


def case_contextnet_ctc(train=False):
    torch.manual_seed(0)
    enc = ContextNet(input_shape=[None, None, 40], out_channels=32, conv_channels=[32, 32, 32], num_blocks=3,
                     strides=[1, 2, 1], kernel_size=3, num_layers=1, inner_dim=8)
    return _ctc_case(_CTCStep(enc, 32, 20), train)


class _TransformerStep(torch.nn.Module):
    """Transformer/Conformer ASR recipe: Fbank -> norm -> TransformerASR(src, tokens_bos, wav_lens) -> CTC and
    seq2seq heads (log-probabilities)."""

    def __init__(self, model, vocab):
        super().__init__()
        self.compute_features = Fbank(n_mels=40)
        self.normalize = InputNormalization(norm_type="global")
        self.model = model
        self.ctc_lin = Linear(input_size=64, n_neurons=vocab)
        self.seq_lin = Linear(input_size=64, n_neurons=vocab)

    def forward(self, wavs, lens, tokens_bos):
        feats = self.normalize(self.compute_features(wavs), lens)
        enc_out, dec_out = self.model(feats, tokens_bos, lens, pad_idx=0)
        return F.log_softmax(self.ctc_lin(enc_out), -1), F.log_softmax(self.seq_lin(dec_out), -1)


def case_transformer_asr(encoder="transformer", train=False):
    torch.manual_seed(0)
    vocab = 20
    kwargs = dict(tgt_vocab=vocab, input_size=40, d_model=64, nhead=4, num_encoder_layers=2, num_decoder_layers=1,
                  d_ffn=128, activation=torch.nn.GELU)
    if encoder == "conformer":
        kwargs.update(encoder_module="conformer", attention_type="RelPosMHAXL", normalize_before=True)
    step = _TransformerStep(TransformerASR(**kwargs), vocab)
    wavs, lens = _wavs()
    tokens = torch.randint(1, vocab, (2, 5))
    tokens_bos = torch.cat([torch.zeros(2, 1, dtype=torch.long), tokens], 1)
    if not train:
        _with_global_stats(step, wavs, lens, tokens_bos)
    case = {"model": step, "args": (wavs, lens, tokens_bos)}
    if train:
        tokens_eos = torch.cat([tokens, torch.zeros(2, 1, dtype=torch.long)], 1)
        token_lens = torch.tensor([1.0, 0.8])

        def objectives(out):
            p_ctc, p_seq = out
            loss_seq = sb_losses.nll_loss(p_seq, tokens_eos, length=token_lens)
            loss_ctc = sb_losses.ctc_loss(p_ctc, tokens, lens, token_lens, blank_index=0)
            return 0.3 * loss_ctc + 0.7 * loss_seq

        case["loss"] = objectives
    return case


class _Sepformer(torch.nn.Module):
    """Separation recipe's compute_forward: est = Decoder(Encoder(mix) * MaskNet(Encoder(mix))) per speaker."""

    def __init__(self, spks=2):
        super().__init__()
        self.num_spks = spks
        self.encoder = Encoder(kernel_size=16, out_channels=32)
        intra = SBTransformerBlock(1, 32, 4, d_ffn=64)
        inter = SBTransformerBlock(1, 32, 4, d_ffn=64)
        self.masknet = Dual_Path_Model(32, 32, intra, inter, num_layers=1, K=50, num_spks=spks)
        self.decoder = Decoder(in_channels=32, out_channels=1, kernel_size=16, stride=8, bias=False)

    def forward(self, mix):
        mix_w = self.encoder(mix)
        est_mask = self.masknet(mix_w)
        mix_w = torch.stack([mix_w] * self.num_spks)
        sep_h = mix_w * est_mask
        est_source = torch.cat([self.decoder(sep_h[i]).unsqueeze(-1) for i in range(self.num_spks)], dim=-1)
        t_origin, t_est = mix.size(1), est_source.size(1)
        if t_origin > t_est:
            est_source = F.pad(est_source, (0, 0, 0, t_origin - t_est))
        else:
            est_source = est_source[:, :t_origin, :]
        return est_source


def case_sepformer(train=False):
    torch.manual_seed(0)
    mix = torch.randn(2, 4000) * 0.1
    case = {"model": _Sepformer(), "args": (mix,)}
    if train:
        targets = torch.randn(2, 4000, 2) * 0.1
        case["loss"] = lambda est: sb_losses.get_si_snr_with_pitwrapper(targets, est).mean()
    return case


def case_rnnlm(train=False):
    torch.manual_seed(0)
    lm = RNNLM(output_neurons=20, embedding_dim=16, rnn_layers=1, rnn_neurons=32, dnn_blocks=1, dnn_neurons=32)
    tokens = torch.randint(1, 20, (2, 8))
    case = {"model": lm, "args": (tokens,)}
    if train:
        target = torch.randint(1, 20, (2, 8))
        case["loss"] = lambda logits: sb_losses.nll_loss(F.log_softmax(logits, -1), target)
    return case


def case_fbank():
    """The feature front end users compile with the model: Fbank(wavs) (STFT, filterbank, log, deltas off)."""
    torch.manual_seed(0)
    wavs, _ = _wavs()
    return {"model": Fbank(n_mels=40, deltas=True, context=True), "args": (wavs,)}
