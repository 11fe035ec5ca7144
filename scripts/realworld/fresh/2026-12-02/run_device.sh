#!/usr/bin/env bash
# device: install the carried wheels, run every listed node id as its own `graphbreak check` (CPU, eager), N at a time,
# for at most BUDGET seconds; then slim what finished (as slim_results.py does) into $OUT/<lib>-device.jsonl.
# Runs from the session checkout's ignored .whl/truth4/ (wheels/, graphbreak, draw/ = a copy of this directory).
# usage (on the device, from the checkout root): bash .whl/truth4/draw/run_device.sh IDS_FILE [JOBS] [BUDGET]
set -u
export CUDA_VISIBLE_DEVICES= OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/truth4/wheels/*.whl || exit 1
export PYTHONPATH=/tmp/site
root=$PWD
cd .whl/truth4/draw
python3 -c "import torch, sys; print(torch.__version__, sys.version)"
python3 -c "import torch_geometric, transformers, torchtune, lightly, e3nn, gpytorch, chronos; print(torch_geometric.__file__, torch_geometric.__version__, transformers.__version__)"
ids_file=$root/$1; jobs=${2:-15}; budget=${3:-400}
run_one() {
  id=$1; safe=$(echo "$id" | tr -c 'A-Za-z0-9_.=-' '_')
  $GB check --python python3 --device cpu --backend eager --no-measure --no-cache --timeout 480 \
    --output-format json --output /tmp/r_$safe.json --jsonl /tmp/r_$safe.jsonl "$id" > /tmp/log_$safe.txt 2>&1
  echo "$(date +%T) done rc=$? $id"
}
export -f run_one; export GB=$root/.whl/truth4/graphbreak
timeout $budget xargs -a "$ids_file" -d '\n' -P "$jobs" -I{} bash -c 'run_one "$@"' _ {}
python3 $root/.whl/truth4/draw/device_slim.py /tmp $OUT
tar czf $OUT/logs.tgz /tmp/log_*.txt 2>/dev/null
ls -la $OUT
