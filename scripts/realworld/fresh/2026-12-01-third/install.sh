#!/usr/bin/env bash
# Rebuilds the venv the third fresh draw's cases were written and checked in: the base venv's torch (2.11, CPU use)
# seen through a .pth, the six drawn libraries at their pinned versions with --no-deps, then their import-time
# dependencies (pip resolves these against the base torch, so no other torch is pulled in); installed.txt is the result.
#  - pip's first resolution picked huggingface-hub 2.x and pandas 3.1 (python-doctr needs <2, pytorch-forecasting
#    <3.1): both re-pinned below.
#  - opencv-python-headless stands in for doctr's opencv-python (same cv2 module, no GUI libraries).
#  - timm (effdet's dependency) is a spent library: fine to install, recorded.
# usage: install.sh [VENV] [BASE_VENV]   (defaults /work/venvs/eval3, /work/main/.venv)
set -euo pipefail
venv=${1:-/work/venvs/eval3}
base=${2:-/work/main/.venv}
"$base/bin/python" -m venv "$venv"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$base/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$site/torch_base.pth"
"$venv/bin/pip" install --no-deps vit-pytorch==1.26.11 denoising-diffusion-pytorch==2.3.4 python-doctr==1.1.0 \
  pytorch-forecasting==1.8.0 effdet==0.4.1 speechbrain==1.1.2 torchvision==0.26.0
"$venv/bin/pip" install einops accelerate ema-pytorch pillow pytorch-fid scipy tqdm onnx h5py opencv-python-headless \
  pypdfium2 pyclipper shapely langdetect rapidfuzz huggingface-hub anyascii validators "lightning!=2.6.2,!=2.6.3,<2.7.0" \
  pandas scikit-learn "scikit-base<1.1.0" timm pycocotools omegaconf hyperpyyaml joblib packaging requests sentencepiece \
  soundfile torchaudio==2.11.0
"$venv/bin/pip" install "huggingface-hub<2.0.0,>=0.20.0" "pandas<3.1.0"
for m in vit_pytorch denoising_diffusion_pytorch doctr.models pytorch_forecasting effdet speechbrain.lobes.models; do
  "$venv/bin/python" -c "import $m"
done
