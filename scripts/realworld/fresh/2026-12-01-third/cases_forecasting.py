"""pytorch-forecasting 1.8.0 models as `graphbreak check` cases (random init, small sizes).

Users build a model from a TimeSeriesDataSet (`TemporalFusionTransformer.from_dataset(training, ...)`, the
README's example; likewise NBeats, NHiTS, DeepAR, RecurrentNetwork, DecoderMLP, TiDEModel, TimeXer, xLSTMTime)
and train it with a Lightning Trainer, whose training_step runs `out = model(x)` on the dataloader's batch and
`loss = model.loss(out["prediction"], y)`; users who compile compile the model. The cases build a small synthetic
dataset (3 series, encoder 16 steps, horizon 4; the target only for N-BEATS, plus a known covariate for the others),
take one batch from `to_dataloader`, and run the forward (eval) or forward + the model's own loss + backward (train).
"""

import numpy as np
import pandas as pd
import torch
from pytorch_forecasting import (
    DeepAR,
    DecoderMLP,
    NBeats,
    NHiTS,
    RecurrentNetwork,
    TemporalFusionTransformer,
    TiDEModel,
    TimeSeriesDataSet,
)
from pytorch_forecasting.models import TimeXer, xLSTMTime
from pytorch_forecasting.metrics import MASE, MultiLoss, QuantileLoss

ENC, PRED = 16, 4


def _dataset(covariates=True):
    rng = np.random.default_rng(0)
    n = 48
    frames = []
    for g in range(3):
        frames.append(pd.DataFrame({
            "time_idx": np.arange(n),
            "group": str(g),
            "value": np.sin(np.arange(n) / 4.0 + g) + rng.normal(0, 0.1, n),
            "known": np.cos(np.arange(n) / 6.0),
        }))
    data = pd.concat(frames, ignore_index=True)
    kwargs = dict(time_idx="time_idx", target="value", group_ids=["group"], max_encoder_length=ENC,
                  max_prediction_length=PRED, time_varying_unknown_reals=["value"])
    if covariates:
        kwargs.update(time_varying_known_reals=["known"], static_categoricals=["group"])
    else:
        kwargs.update(min_encoder_length=ENC)
    return TimeSeriesDataSet(data, **kwargs)


BUILD = {
    "tft": (True, lambda ds: TemporalFusionTransformer.from_dataset(ds, hidden_size=8, attention_head_size=2,
                                                                    hidden_continuous_size=4, dropout=0.1,
                                                                    loss=QuantileLoss())),
    "nbeats": (False, lambda ds: NBeats.from_dataset(ds, widths=[16, 64], backcast_loss_ratio=0.1)),
    "nhits": (True, lambda ds: NHiTS.from_dataset(ds, hidden_size=16, n_blocks=[1, 1, 1])),
    "deepar": (True, lambda ds: DeepAR.from_dataset(ds, hidden_size=8, rnn_layers=2)),
    "lstm": (True, lambda ds: RecurrentNetwork.from_dataset(ds, cell_type="LSTM", hidden_size=8, rnn_layers=2)),
    "gru": (True, lambda ds: RecurrentNetwork.from_dataset(ds, cell_type="GRU", hidden_size=8, rnn_layers=1)),
    "mlp": (True, lambda ds: DecoderMLP.from_dataset(ds, hidden_size=16, n_hidden_layers=2)),
    "tide": (True, lambda ds: TiDEModel.from_dataset(ds, hidden_size=16, decoder_output_dim=4,
                                                     temporal_decoder_hidden=8)),
    "timexer": (True, lambda ds: TimeXer.from_dataset(ds, hidden_size=16, n_heads=2, e_layers=1, d_ff=32,
                                                      patch_length=4)),
    "xlstm": (True, lambda ds: xLSTMTime.from_dataset(ds, hidden_size=16, input_size=2, output_size=PRED,
                                                      decomposition_kernel=5)),
}


class _TrainStep(torch.nn.Module):
    """BaseModel.step's tensor part (training_step): out = model(x); loss = model.loss(out['prediction'], y),
    with the encoder target and lengths for MASE / MultiLoss losses as step passes them."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, y):
        out = self.model(x)
        if isinstance(self.model.loss, MASE | MultiLoss):
            return self.model.loss(out["prediction"], y, encoder_target=x["encoder_target"],
                                   encoder_lengths=x["encoder_lengths"])
        return self.model.loss(out["prediction"], y)


def case_model(name="tft", train=False):
    torch.manual_seed(0)
    covariates, build = BUILD[name]
    ds = _dataset(covariates)
    model = build(ds)
    x, y = next(iter(ds.to_dataloader(train=False, batch_size=4, num_workers=0)))
    if not train:
        return {"model": model, "args": (x,)}
    return {"model": _TrainStep(model), "args": (x, y), "loss": lambda loss: loss}
