#!/usr/bin/env bash
# Builds everything and runs the whole test suite (the README's second command; CI runs exactly this).
#   1. installs Debian packages (scripts/setup.sh)
#   2. release build + every CPU test (ctest)
#   3. builds the CUDA backend and its GPU tests with nvcc (sm_90a + sm_80) when nvcc exists;
#      GPU tests run on a GPU machine (scripts/gpu/run_gpu_suite.sh) and skip loudly elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

jobs=$(nproc)
cmake --preset release
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"

if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
if command -v nvcc >/dev/null || [ -n "${CUDACXX:-}" ]; then
  cmake --preset cuda ${CUDACXX:+-DCMAKE_CUDA_COMPILER=$CUDACXX}
  cmake --build --preset cuda -j "$jobs"
  # The GPU test binaries must at least start and report that they skip without a GPU.
  if [ -x build/cuda/tests/gpu/test_gpu ] && ! nvidia-smi >/dev/null 2>&1; then
    build/cuda/tests/gpu/test_gpu --gtest_brief=1 | tail -n 3
  fi
else
  echo "WARNING: nvcc not found: the CUDA backend was NOT built" >&2
fi
