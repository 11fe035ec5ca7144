#!/usr/bin/env bash
# The --profile validation on a CUDA machine (docs/check.md "Where the step time goes"): the GPU tests of
# tests/python/test_profile.py (syncs at marked lines; kernels/step and GPU busy share against
# torch.profiler's trace of the same steps), then `check --profile` on the DETR training case.
# Usage: scripts/profile_gpu.sh GRAPHBREAK_BINARY OUT_DIR   (python3 must hold torch with CUDA,
# transformers, scipy and pillow; run from the repository root or a copy of its src/, corpus/, tests/).
set -uo pipefail
binary="$(realpath "$1")"
out="$(realpath "$2")"
cd "$(dirname "$0")/.."
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-$PWD/target/profile-cache}"
python3 -c "import torch, transformers, scipy; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '-', 'transformers', transformers.__version__, 'scipy', scipy.__version__)" 2>&1 | tee "$out/versions.txt"
started=$(date +%s)
timeout 240 python3 -m pytest tests/python/test_profile.py -v -s -p no:cacheprovider > "$out/pytest.txt" 2>&1; grep -E "PASSED|FAILED|passed|failed|kernels/step|Error" "$out/pytest.txt" | cut -c1-400
echo "pytest: $(( $(date +%s) - started )) s"
cd corpus/cases
started=$(date +%s)
timeout 420 "$binary" check --profile "detr.py::case_detr_training" --python python3 --device cuda \
  --warmup 3 --steps 10 --timeout 400 --output "$out/detr.txt" --jsonl "$out/detr.jsonl" 2>&1 | tail -5
echo "detr check: $(( $(date +%s) - started )) s"
cat "$out/detr.txt"
