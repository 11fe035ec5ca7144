"""chronos-forecasting 2.3.2 time-series models as `graphbreak check` cases (random init from configs, tiny sizes).

Users load a pipeline (`ChronosPipeline` / `ChronosBoltPipeline` / `Chronos2Pipeline.from_pretrained`) whose
`.model` is the network they compile and fine-tune; here each network is built from a config of the same shape as the
released ones (no weights downloaded): Chronos-Bolt (`ChronosBoltModelForForecasting`, a patched T5 encoder-decoder
with quantile head), Chronos-2 (`Chronos2Model`, group attention, future covariates), and the original Chronos
(`ChronosModel` around a T5 `AutoModelForSeq2SeqLM`, with the `MeanScaleUniformBins` tokenizer). Eval cases are the
pipelines' prediction step (the model's forward under no_grad, as `_predict_step` / `predict` call it: quantile
forecasts, or sampled token paths via `generate` for the original Chronos); training cases are the fine-tuning step
(the forward with `target` / `future_target` returns the quantile loss; for the original Chronos the T5 loss on the
tokenized labels) and backward. Contexts: 4 series of 64 steps (some NaN, as missing values), horizon 16.
"""

import torch
from torch import nn
from transformers import T5Config, T5ForConditionalGeneration

from chronos.chronos import ChronosConfig, ChronosModel
from chronos.chronos2.config import Chronos2CoreConfig
from chronos.chronos2.model import Chronos2Model
from chronos.chronos_bolt import ChronosBoltModelForForecasting

CONTEXT, HORIZON, BATCH = 64, 16, 4
QUANTILES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
T5_SMALL = dict(d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=1, num_heads=4, dropout_rate=0.1)


def _series(seed=0, length=CONTEXT, nan=True):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    x = torch.sin(t / 5.0).expand(BATCH, -1) * 10 + 5 + torch.randn(BATCH, length, generator=g)
    x = x.clone()
    if nan:
        x[1, :8] = torch.nan  # a shorter series, left-padded with NaN as the pipelines pad it
        x[2, 20] = torch.nan  # a missing value
    return x


def _bolt():
    config = T5Config(**T5_SMALL, feed_forward_proj="relu", decoder_start_token_id=0, pad_token_id=0, chronos_config=dict(
        context_length=CONTEXT, prediction_length=HORIZON, input_patch_size=8, input_patch_stride=8,
        quantiles=QUANTILES, use_reg_token=True))
    return ChronosBoltModelForForecasting(config)


class _Quantiles(nn.Module):
    """What the pipeline reads from the model output: quantile_preds (or the loss when training)."""

    def __init__(self, model, field="quantile_preds"):
        super().__init__()
        self.model = model
        self.field = field

    def forward(self, *args, **kwargs):
        return getattr(self.model(*args, **kwargs), self.field)


def case_bolt(train=False):
    torch.manual_seed(0)
    model = _bolt()
    context = _series()
    if not train:
        return {"model": _Quantiles(model), "args": (context,)}
    target = _series(1, HORIZON, nan=False)
    return {"model": _Quantiles(model, "loss"), "args": (context,), "kwargs": {"target": target},
            "loss": lambda out: out}


def _chronos2():
    config = Chronos2CoreConfig(d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4, dropout_rate=0.1,
                                chronos_config=dict(context_length=CONTEXT, input_patch_size=8, input_patch_stride=8,
                                                    output_patch_size=8, quantiles=QUANTILES, use_reg_token=True,
                                                    use_arcsinh=True, max_output_patches=4))
    return Chronos2Model(config)


def case_chronos2(train=False, covariates=False):
    """Chronos-2: univariate series (each its own group) or a group of a target with known future covariates."""
    torch.manual_seed(0)
    model = _chronos2()
    context = _series()
    kwargs = {"num_output_patches": HORIZON // 8}
    if covariates:
        kwargs["group_ids"] = torch.tensor([0, 0, 1, 1])
        future = _series(2, HORIZON, nan=False)
        future[0] = torch.nan  # series 0 is the target of group 0; series 1 a known covariate
        future[2] = torch.nan
        kwargs["future_covariates"] = future
    else:
        kwargs["group_ids"] = torch.arange(BATCH)
    if not train:
        return {"model": _Quantiles(model), "args": (context,), "kwargs": kwargs}
    kwargs["future_target"] = _series(1, HORIZON, nan=False)
    return {"model": _Quantiles(model, "loss"), "args": (context,), "kwargs": kwargs, "loss": lambda out: out}


def _chronos():
    n_tokens = 256
    config = ChronosConfig(tokenizer_class="MeanScaleUniformBins", tokenizer_kwargs={"low_limit": -15.0,
                                                                                      "high_limit": 15.0},
                           context_length=CONTEXT, prediction_length=HORIZON, n_tokens=n_tokens, n_special_tokens=2,
                           pad_token_id=0, eos_token_id=1, use_eos_token=True, model_type="seq2seq", num_samples=2,
                           temperature=1.0, top_k=50, top_p=1.0)
    inner = T5ForConditionalGeneration(T5Config(**T5_SMALL, vocab_size=n_tokens, pad_token_id=0, eos_token_id=1,
                                                decoder_start_token_id=0))
    return config, config.create_tokenizer(), ChronosModel(config=config, model=inner)


class ChronosForecast(nn.Module):
    """ChronosPipeline.predict's tensor part: tokenize the context, sample token paths, map them back to values."""

    def __init__(self, tokenizer, model):
        super().__init__()
        self.tokenizer = tokenizer
        self.model = model

    def forward(self, context):
        token_ids, attention_mask, scale = self.tokenizer.context_input_transform(context)
        samples = self.model(token_ids, attention_mask, prediction_length=4, num_samples=2)
        return self.tokenizer.output_transform(samples, scale)


class ChronosTrainStep(nn.Module):
    """The training script's step: tokenize context and labels, T5 loss on the label tokens."""

    def __init__(self, tokenizer, model):
        super().__init__()
        self.tokenizer = tokenizer
        self.model = model

    def forward(self, context, future):
        input_ids, attention_mask, scale = self.tokenizer.context_input_transform(context)
        labels, labels_mask = self.tokenizer.label_input_transform(future, scale)
        labels = labels.masked_fill(~labels_mask, -100)
        return self.model.model(input_ids=input_ids, attention_mask=attention_mask, labels=labels).loss


class ChronosEmbed(nn.Module):
    """ChronosPipeline.embed's tensor part: tokenize, then the encoder's last hidden state."""

    def __init__(self, tokenizer, model):
        super().__init__()
        self.tokenizer = tokenizer
        self.model = model

    def forward(self, context):
        token_ids, attention_mask, scale = self.tokenizer.context_input_transform(context)
        return self.model.encode(token_ids, attention_mask), scale


def case_chronos(mode="train"):
    torch.manual_seed(0)
    _, tokenizer, model = _chronos()
    context = _series()
    if mode == "train":
        return {"model": ChronosTrainStep(tokenizer, model), "args": (context, _series(1, HORIZON, nan=False)),
                "loss": lambda out: out}
    if mode == "embed":
        return {"model": ChronosEmbed(tokenizer, model), "args": (context,)}
    return {"model": ChronosForecast(tokenizer, model), "args": (context,)}
