#!/usr/bin/env bash
# Throughput benchmark: `graphbreak scan` vs `ruff check` (default rules) on real PyPI trees.
#
# Downloads pinned wheels of transformers and timm into bench/.work (gitignored), unpacks them, installs a
# pinned ruff into a bench venv, builds graphbreak --release, then times both tools on the same trees in the
# same run (median of N runs, peak RSS, lines/second) and prints a markdown table.
#
# Usage: scripts/bench.sh [--runs N] [--warmup N] [--threads N] [--interleave] [--skip-build] [--ruff-only]
#                       [--variant NAME=BINARY]...
#   --variant NAME=BINARY: also time another graphbreak build (A/B of a proposed change); repeatable.
#   --interleave: time with a loop that alternates the tools run by run (fairer under background load)
#                 instead of hyperfine.
# Env overrides: TRANSFORMERS_VERSION, TIMM_VERSION, RUFF_VERSION, PYTHON (interpreter for the venv).
#
# Both tools parallelize with rayon over all cores by default; `--threads N` sets RAYON_NUM_THREADS=N for
# both, so they are always compared under the same parallelism.
set -euo pipefail

TRANSFORMERS_VERSION="${TRANSFORMERS_VERSION:-5.24.0}"
TIMM_VERSION="${TIMM_VERSION:-1.0.31}"
RUFF_VERSION="${RUFF_VERSION:-0.17.6}"
PYTHON="${PYTHON:-python3}"

runs=5
warmup=1
threads=""
skip_build=0
ruff_only=0
interleave=0
variants=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --skip-build) skip_build=1; shift ;;
    --interleave) interleave=1; shift ;;
    --ruff-only) ruff_only=1; shift ;;
    --variant) variants+=(--variant "$2"); shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$repo_root/bench/.work"
wheels="$work/wheels"
trees="$work/trees"
venv="$work/venv"
mkdir -p "$wheels" "$trees"

log() { printf '[bench] %s\n' "$*" >&2; }

# --- 1. real trees from PyPI -------------------------------------------------------------------------------
fetch_tree() {  # name version
  local name="$1" version="$2" dest="$trees/$1-$2"
  if [[ -f "$dest/.unpacked" ]]; then
    return
  fi
  log "downloading $name==$version"
  "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --dest "$wheels" "$name==$version"
  local wheel
  wheel="$(ls "$wheels"/"$name"-"$version"-*.whl | head -n1)"
  rm -rf "$dest"
  mkdir -p "$dest"
  "$PYTHON" -m zipfile -e "$wheel" "$dest"
  # A nested repository boundary: bench/.work is gitignored in the graphbreak checkout, and a walker that
  # honours parent .gitignore files must not mistake the benchmark tree for ignored files.
  git init --quiet "$dest"
  touch "$dest/.unpacked"
}
fetch_tree transformers "$TRANSFORMERS_VERSION"
fetch_tree timm "$TIMM_VERSION"
transformers_tree="$trees/transformers-$TRANSFORMERS_VERSION"
timm_tree="$trees/timm-$TIMM_VERSION"

# --- 2. pinned ruff in a bench venv ---------------------------------------------------------------------------
if [[ ! -x "$venv/bin/ruff" ]] || [[ "$("$venv/bin/ruff" --version)" != "ruff $RUFF_VERSION" ]]; then
  log "installing ruff==$RUFF_VERSION into $venv"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "ruff==$RUFF_VERSION"
fi
ruff="$venv/bin/ruff"

# --- 3. graphbreak --release ------------------------------------------------------------------------------------
graphbreak=""
if [[ "$ruff_only" == 0 ]]; then
  if [[ "$skip_build" == 0 ]]; then
    log "building graphbreak --release"
    cargo build --release --quiet --manifest-path "$repo_root/Cargo.toml"
  fi
  target_dir="${CARGO_TARGET_DIR:-$repo_root/target}"
  graphbreak="$target_dir/release/graphbreak"
  [[ -x "$graphbreak" ]] || { echo "bench.sh: no graphbreak binary at $graphbreak" >&2; exit 2; }
fi

# --- 3b. parse-only floor (same parser, no rules): what any ruff_python_parser-based scanner pays ---------------
parse_floor=""
if [[ "$ruff_only" == 0 ]]; then
  floor_target="$work/parse-floor-target"
  if [[ "$skip_build" == 0 ]]; then
    log "building the parse-only floor (scripts/bench/parse_floor)"
    CARGO_TARGET_DIR="$floor_target" cargo build --release --quiet \
      --manifest-path "$repo_root/scripts/bench/parse_floor/Cargo.toml"
  fi
  if [[ -x "$floor_target/release/parse-floor" ]]; then
    parse_floor="$floor_target/release/parse-floor"
  fi
fi

# --- 4. measure -------------------------------------------------------------------------------------------------
if [[ -n "$threads" ]]; then
  export RAYON_NUM_THREADS="$threads"
fi
args=(--runs "$runs" --warmup "$warmup" --ruff "$ruff"
      --tree "transformers-$TRANSFORMERS_VERSION=$transformers_tree"
      --tree "timm-$TIMM_VERSION=$timm_tree")
if [[ -n "$graphbreak" ]]; then
  args+=(--graphbreak "$graphbreak")
fi
if [[ -n "$parse_floor" ]]; then
  args+=(--parse-floor "$parse_floor")
fi
if [[ "$interleave" == 1 ]]; then
  args+=(--interleave)
fi
args+=("${variants[@]}")
exec "$PYTHON" "$repo_root/scripts/bench/measure.py" "${args[@]}"
