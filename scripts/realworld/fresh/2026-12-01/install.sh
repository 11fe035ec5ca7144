#!/usr/bin/env bash
# Rebuilds the venv the fresh-draw cases ran in: the base venv's torch (2.11, CPU use) seen through a .pth,
# the six drawn libraries at their pinned versions with --no-deps, then their import-time dependencies
# (pip resolves these against the base torch, so no other torch is pulled in; pip chose numpy 1.26.4).
# usage: install.sh [VENV] [BASE_VENV]   (defaults /work/venvs/eval, /work/main/.venv)
set -euo pipefail
venv=${1:-/work/venvs/eval}
base=${2:-/work/main/.venv}
"$base/bin/python" -m venv "$venv"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$base/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$site/torch_base.pth"
SAM2_BUILD_CUDA=0 SAM2_BUILD_ALLOW_ERRORS=1 "$venv/bin/pip" install --no-deps \
  sam2==1.1.0 segment-anything==1.0 demucs==4.1.0 torchmetrics==1.9.0 k-diffusion==0.1.1.post1 \
  openai-whisper==20250625 torchvision==0.26.0
"$venv/bin/pip" install einops julius pyyaml tqdm hydra-core iopath pillow lightning-utilities tiktoken \
  more-itertools safetensors jsonmerge dctorch scipy scikit-image clean-fid clip-anytorch torchdiffeq torchsde \
  accelerate kornia numba
for m in sam2 segment_anything demucs torchmetrics k_diffusion whisper; do "$venv/bin/python" -c "import $m"; done
