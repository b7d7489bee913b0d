#!/usr/bin/env bash
# Builds everything and runs the whole test suite (the README's second command; CI runs exactly this).
#   1. installs Debian packages (scripts/setup.sh)
#   2. builds the CUDA backend with nvcc (sm_90a + sm_80) when nvcc exists, runs its host-side tests
#      and checks that the GPU tests start and skip loudly without a GPU (they run for real on a GPU
#      machine: scripts/gpu/run_gpu_suite.sh)
#   3. the parsers, tokenizer, checkpoint reader, request/row/answer code, runtime, CPU ops, the CUDA
#      engine's host-side logic and the HTTP server (in process and the real binary) under
#      AddressSanitizer + UBSan (dev preset): hostile input must never corrupt memory
#   4. the threaded code under ThreadSanitizer (scripts/tsan.sh: scheduler, HTTP server, the real
#      binary under concurrent load): no data race
#   5. release build + every CPU test (ctest), last, so its summary closes the output
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)

if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
if command -v nvcc >/dev/null || [ -n "${CUDACXX:-}" ]; then
  cmake --preset cuda ${CUDACXX:+-DCMAKE_CUDA_COMPILER=$CUDACXX}
  cmake --build --preset cuda -j "$jobs" --target laya-engine test_cuda_host test_gpu
  build/cuda/tests/gpu/test_cuda_host --gtest_brief=1
  if nvidia-smi >/dev/null 2>&1; then
    build/cuda/tests/gpu/test_gpu --gtest_brief=1
  else
    echo "no GPU here: test_gpu must start and skip every test" >&2
    build/cuda/tests/gpu/test_gpu --gtest_brief=1 | tail -n 4
  fi
else
  echo "WARNING: nvcc not found: the CUDA backend was NOT built" >&2
fi

sanitized=(model/test_model checkpoint/test_checkpoint tokenizer/test_tokenizer api/test_api prompt/test_prompt
           decode/test_decode engine/test_engine runtime/test_runtime backends/cpu/test_cpu_ops gpu/test_cuda_host
           server/test_server server/test_server_acceptance)  # the last one drives an ASan-built laya-engine
cmake --preset dev
cmake --build --preset dev -j "$jobs" --target "${sanitized[@]##*/}"
for t in "${sanitized[@]}"; do
  echo "ASan+UBSan: $t"
  "build/dev/tests/$t" --gtest_brief=1
done

scripts/tsan.sh

cmake --preset release
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"
