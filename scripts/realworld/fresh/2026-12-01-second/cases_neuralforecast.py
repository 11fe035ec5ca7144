"""neuralforecast 3.3.0 models as `graphbreak check` cases (random init, small horizons).

Each model is a LightningModule whose `forward(windows_batch)` is what the trainer calls in
training_step / predict_step (users compile the model, e.g. `torch.compile(model)` before
`NeuralForecast(models=[...]).fit`). The cases build the models as users do (`NHITS(h=..., input_size=...)`)
and feed the windows dict training_step builds (insample_y / insample_mask [B, L, 1] for univariate models,
[B, L, n_series] for multivariate ones; no exogenous variables). Training cases (`train=True`) run what
training_step runs after windowing: forward, `loss.domain_map`, and the model's own loss (MAE by default)
against the outsample window with its mask, then backward.
"""

import torch
from neuralforecast.models import (
    DLinear,
    KAN,
    MLP,
    NBEATS,
    NHITS,
    NLinear,
    PatchTST,
    SOFTS,
    TFT,
    TSMixer,
    TiDE,
    TimesNet,
    VanillaTransformer,
    iTransformer,
    Informer,
    Autoformer,
    FEDformer,
    BiTCN,
    TimeMixer,
    DeepNPTS,
    LSTM,
)

H, L, N_SERIES, BATCH = 4, 16, 3, 8

UNIVARIATE = {
    "nhits": lambda: NHITS(h=H, input_size=L, n_pool_kernel_size=[2, 2, 1], n_freq_downsample=[2, 1, 1]),
    "nbeats": lambda: NBEATS(h=H, input_size=L),
    "mlp": lambda: MLP(h=H, input_size=L, num_layers=2, hidden_size=32),
    "dlinear": lambda: DLinear(h=H, input_size=L),
    "nlinear": lambda: NLinear(h=H, input_size=L),
    "patchtst": lambda: PatchTST(h=H, input_size=L, patch_len=4, stride=4, hidden_size=16, linear_hidden_size=32,
                                 n_heads=2, encoder_layers=1),
    "vanilla_transformer": lambda: VanillaTransformer(h=H, input_size=L, hidden_size=16, conv_hidden_size=16, n_head=2),
    "informer": lambda: Informer(h=H, input_size=L, hidden_size=16, conv_hidden_size=16, n_head=2),
    "autoformer": lambda: Autoformer(h=H, input_size=L, hidden_size=16, conv_hidden_size=16, n_head=2),
    "fedformer": lambda: FEDformer(h=H, input_size=L, hidden_size=16, conv_hidden_size=16, n_head=8, modes=4),
    "tft": lambda: TFT(h=H, input_size=L, hidden_size=16, n_head=2),
    "tide": lambda: TiDE(h=H, input_size=L, hidden_size=32, decoder_output_dim=4, temporal_decoder_dim=16),
    "timesnet": lambda: TimesNet(h=H, input_size=L, hidden_size=16, conv_hidden_size=16, top_k=2, encoder_layers=1),
    "kan": lambda: KAN(h=H, input_size=L, hidden_size=16, n_hidden_layers=1),
    "bitcn": lambda: BiTCN(h=H, input_size=L, hidden_size=8),
    "deepnpts": lambda: DeepNPTS(h=H, input_size=L, hidden_size=16),
    "lstm": lambda: LSTM(h=H, input_size=L, encoder_hidden_size=16, decoder_hidden_size=16),
}

MULTIVARIATE = {
    "tsmixer": lambda: TSMixer(h=H, input_size=L, n_series=N_SERIES, n_block=2, ff_dim=16),
    "itransformer": lambda: iTransformer(h=H, input_size=L, n_series=N_SERIES, hidden_size=16, n_heads=2, e_layers=1,
                                         d_ff=32),
    "softs": lambda: SOFTS(h=H, input_size=L, n_series=N_SERIES, hidden_size=16, d_core=16, e_layers=1, d_ff=32),
    "timemixer": lambda: TimeMixer(h=H, input_size=L, n_series=N_SERIES, d_model=16, d_ff=16, e_layers=1,
                                   down_sampling_layers=1, down_sampling_window=2),
}


class _TrainStep(torch.nn.Module):
    """training_step after windowing: forward, domain_map, the model's loss over the masked outsample window."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, windows_batch, outsample_y, outsample_mask):
        output = self.model(windows_batch)
        output = self.model.loss.domain_map(output)
        return self.model.loss(y=outsample_y, y_hat=output, y_insample=windows_batch["insample_y"],
                               mask=outsample_mask)


def _windows(series):
    g = torch.Generator().manual_seed(0)
    y = torch.randn(BATCH, L + H, series, generator=g)
    windows = {
        "insample_y": y[:, :L],
        "insample_mask": torch.ones(BATCH, L, series),
        "futr_exog": None,
        "hist_exog": None,
        "stat_exog": None,
    }
    return windows, y[:, L:], torch.ones(BATCH, H, series)


def case_model(name="nhits", train=False):
    torch.manual_seed(0)
    multivariate = name in MULTIVARIATE
    model = (MULTIVARIATE if multivariate else UNIVARIATE)[name]()
    windows, out_y, out_mask = _windows(N_SERIES if multivariate else 1)
    if not train:
        return {"model": model, "args": (windows,)}
    return {"model": _TrainStep(model), "args": (windows, out_y, out_mask), "loss": lambda loss: loss}
