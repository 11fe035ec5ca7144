#!/usr/bin/env bash
# `check --gpus 1` vs `--gpus 2` on four real models (corpus/cases/models.py: torchvision ResNet-50,
# ViT-B/16, ConvNeXt-T, a 6-layer Transformer encoder; Inductor, random weights), each run with its own
# cold compile caches, then `report diff` of the two reports. Needs a host with 2+ NVIDIA GPUs and a
# python3 with torch + torchvision. Results: docs/measurements/2026-11-30-h200x2-gpus.md.
set -u
cd "$(dirname "$0")/.."
GRAPHBREAK="${GRAPHBREAK:-target/release/graphbreak}"
OUT="${OUT:-target/bench-gpus}"
mkdir -p "$OUT"
export GRAPHBREAK_PYTHON="${GRAPHBREAK_PYTHON:-python3}"
nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader
C=corpus/cases/models.py
for n in 1 2; do
  start=$(date +%s.%N)
  XDG_CACHE_HOME="/tmp/graphbreak-bench-gpus-$n" "$GRAPHBREAK" check \
    $C::case_resnet50 $C::case_vit_b_16 $C::case_convnext_tiny $C::case_transformer_encoder \
    --gpus $n --timeout 200 --warmup 3 --steps 20 \
    --output-format json --output "$OUT/gpus$n.json" --jsonl "$OUT/gpus$n.jsonl"
  end=$(date +%s.%N)
  echo "gpus=$n wall_s=$(python3 -c "print(round($end-$start,1))")"
done
"$GRAPHBREAK" report diff "$OUT/gpus1.json" "$OUT/gpus2.json"
