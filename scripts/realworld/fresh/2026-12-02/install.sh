#!/usr/bin/env bash
# Rebuilds the venv the 2026-12-02 draw's cases were written and checked in: the base venv's torch (2.11, CPU use)
# seen through a .pth (the venv is made with --system-site-packages as the brief asked, but a venv made from a venv's
# python sees the base interpreter's site-packages, not /work/main/.venv's: the .pth adds those), the six drawn
# libraries at their pinned versions with --no-deps (plus torchvision 0.26.0, paired with torch 2.11, for lightly's
# backbones), then their import-time dependencies (pip resolves these against the base torch, so no other torch is
# pulled in); installed.txt is `pip freeze --local` of the result.
#  - torchtune 0.6.1 imports torchao at import time; torchao 0.18 (the newest) no longer has
#    torchao.dtypes.nf4tensor, which torchtune imports: 0.13.0 is pinned (the newest tried that imports).
#  - torchtune's own requirements datasets / blobfile / kagglehub are needed at import (torchtune.data imports datasets).
#  - transformers 5.x was picked by pip for chronos-forecasting (<6,>=4.41).
# usage: install.sh [VENV] [BASE_VENV]   (defaults /work/venvs/eval4, /work/main/.venv)
set -euo pipefail
venv=${1:-/work/venvs/eval4}
base=${2:-/work/main/.venv}
"$base/bin/python" -m venv --system-site-packages "$venv"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$base/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$site/torch_base.pth"
"$venv/bin/pip" install --no-deps chronos-forecasting==2.3.2 e3nn==0.6.0 gpytorch==1.15.2 torch-geometric==2.8.1 \
  lightly==1.6.0 torchtune==0.6.1 torchvision==0.26.0
"$venv/bin/pip" install accelerate einops pandas "transformers<6,>=4.41" scipy opt_einsum_fx "mpmath<=1.3" scikit-learn \
  linear_operator hydra-core tqdm pytorch_lightning aiohttp fsspec jinja2 psutil pyparsing requests xxhash \
  torchdata==0.11.0 safetensors sentencepiece tiktoken omegaconf pillow tokenizers huggingface_hub
"$venv/bin/pip" install --no-deps torchao==0.13.0
"$venv/bin/pip" install datasets blobfile kagglehub
for m in chronos chronos.chronos2 e3nn.o3 e3nn.nn.models.gate_points_2101 gpytorch torch_geometric.nn lightly.models \
  lightly.loss torchtune.models.llama3 torchtune.modules.loss; do
  "$venv/bin/python" -c "import $m"
done
