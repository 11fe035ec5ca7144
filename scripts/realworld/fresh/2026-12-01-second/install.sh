#!/usr/bin/env bash
# Rebuilds the venv the second fresh draw's cases ran in: the base venv's torch (2.11, CPU use) seen through a
# .pth, the six drawn libraries at their pinned versions with --no-deps, then their import-time dependencies
# (pip resolves these against the base torch, so no other torch is pulled in). installed.txt is the result.
#  - torchgeo 0.10.1 declares Requires-Python >=3.12 (torch 2.11 here runs on 3.11): installed with
#    --ignore-requires-python; its one 3.12-only line is handled at import by py311_shim.py (the file stays as released).
#  - mmdet 3.3.0 needs mmcv>=2.0.0rc4,<2.2.0 with its compiled ops (mmcv._ext): only mmcv-lite 2.1.0 (no ops)
#    installs here; building mmcv's C++ ops was not possible in the session (see README), so mmdet does not run.
#  - xformers is installed --no-deps (audiocraft imports `xformers.ops` at module level; the cases use torch attention).
#  - lightly (a torchgeo dependency, and a held-out pool library) is deliberately NOT installed: the models here don't import it.
# usage: install.sh [VENV] [BASE_VENV]   (defaults /work/venvs/eval2, /work/main/.venv)
set -euo pipefail
venv=${1:-/work/venvs/eval2}
base=${2:-/work/main/.venv}
"$base/bin/python" -m venv "$venv"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$base/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$site/torch_base.pth"
"$venv/bin/pip" install --no-deps --ignore-requires-python \
  vector-quantize-pytorch==1.32.0 neuralforecast==3.3.0 easyocr==1.7.2 mmdet==3.3.0 audiocraft==1.3.0 \
  torchgeo==0.10.1 torchvision==0.26.0
"$venv/bin/pip" install einops einx loguru torch-einops-utils pandas coreforecast utilsforecast pytorch-lightning \
  opencv-python-headless scipy scikit-image python-bidi pyyaml shapely pyclipper mmengine matplotlib pycocotools \
  terminaltables six flashy hydra-core omegaconf julius sentencepiece num2words torchaudio==2.11.0 kornia lightning \
  timm segmentation-models-pytorch torchmetrics jsonargparse
"$venv/bin/pip" install ray geopandas rasterio pyproj pyogrio soundfile av transformers wheel ninja optuna pyarrow spacy \
  librosa mmcv-lite==2.1.0
"$venv/bin/pip" install --no-deps xformers
here=$(cd "$(dirname "$0")" && pwd)
for m in vector_quantize_pytorch neuralforecast.models easyocr.craft audiocraft.models; do "$venv/bin/python" -c "import $m"; done
(cd "$here" && "$venv/bin/python" -c "import py311_shim, torchgeo.models")
"$venv/bin/python" -c "import mmdet.models" || echo "install.sh: mmdet.models does not import (no mmcv._ext), as recorded" >&2
