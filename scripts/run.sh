#!/usr/bin/env bash
# Builds laya-engine and starts the HTTP server (the README's first command).
#   scripts/run.sh                      # built-in synthetic demo checkpoint, CPU backend
#   scripts/run.sh --model /path/laya   # a real checkpoint directory (e.g. convaiinnovations/laya)
#   scripts/run.sh --backend cuda ...   # CUDA backend (builds the cuda preset)
# Extra arguments go to `laya-engine serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

preset=release
prev=""
for arg in "$@"; do
  if [ "$arg" = "--backend=cuda" ] || { [ "$prev" = "--backend" ] && [ "$arg" = "cuda" ]; }; then preset=cuda; fi
  prev="$arg"
done
if [ "$preset" = cuda ] && [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" --target laya-engine
model_given=0
for arg in "$@"; do case "$arg" in --model|--model=*) model_given=1 ;; esac; done
if [ "$model_given" = 0 ]; then set -- --model demo "$@"; fi
exec "build/$preset/bin/laya-engine" serve "$@"
