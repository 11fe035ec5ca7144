#!/usr/bin/env bash
# Makes the pinned venv the real-model cases run in (CPU is enough; PyPI's torch wheels also run on CPU).
# usage: scripts/realworld/check_cases/install.sh [VENV_DIR]   (default /work/venvs/models)
set -euo pipefail
venv=${1:-/work/venvs/models}
python=${PYTHON:-python3.11}
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/pip" install --progress-bar off \
  "torch==2.11.0" "torchvision==0.26.0" "timm==1.0.31" "transformers==5.23.0" "scipy==1.17.1"
"$venv/bin/python" -c "import torch, torchvision, timm, transformers, scipy; print('torch', torch.__version__, 'torchvision', torchvision.__version__, 'timm', timm.__version__, 'transformers', transformers.__version__)"
