#!/usr/bin/env bash
# Prepared in session 51 for the next GPU session (not run: no device time left). Two parts:
#  1. the A100's source path on the H200: a build for `80-virtual` (compute_80 PTX only, which the
#     driver JIT-compiles; __CUDA_ARCH__ = 800, so no programmatic launches and no Hopper kernels —
#     the code an A100's sm_80 image runs) through s49's call2.sh: its GPU tests, its answers
#     against the sm_90a build's, and its speed at the goal shapes;
#  2. call2.sh of this record: the 90-real build's full-size english parity against the CPU engine.
# Builds, from main's checkout (each ≈ 2.5–4.5 min on 2 cores from scratch):
#   for a in 90a-real:cuda-h 90-real:cuda-generic 80-virtual:cuda-ptx80; do
#     cmake -S . -B build/${a#*:} -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAYA_WITH_CUDA=ON \
#       -DCMAKE_CUDA_COMPILER=nvcc -DCMAKE_CUDA_ARCHITECTURES=${a%%:*} -DLAYA_BUILD_BENCH=OFF
#     cmake --build build/${a#*:} --target laya-engine test_gpu test_cuda_host; done
#   mkdir -p /tmp/generic /tmp/ptx80
#   cp build/cuda-generic/bin/laya-engine build/cuda-generic/tests/gpu/test_gpu /tmp/generic/
#   cp build/cuda-ptx80/bin/laya-engine build/cuda-ptx80/tests/gpu/test_gpu /tmp/ptx80/
#   LAYA_BASELINE_BIN=/tmp/generic LAYA_ALT_BIN=/tmp/ptx80 LAYA_BUNDLE_PROBES=none scripts/gpu/bundle.sh build/cuda-h
#   R=docs/validation; cp $R/cuda-h200-2026-12-05-s49/call2.sh $R/cuda-h200-2026-12-05-s51/call3.sh .gpu/
#   cp $R/cuda-h200-2026-12-05-s51/call2.sh .gpu/call2-s51.sh
# (a 21 MB bundle; -base = 90-real, -alt = 80-virtual). Run: `bash .gpu/call3.sh`, carry [".gpu"],
# timeout 600; ≈ 5–6 min.
set -u
O=${OUT:-/tmp/out}
mkdir -p "$O"
export CUDA_CACHE_MAXSIZE=4294967296  # every PTX kernel JIT-compiled once, kept for the later runs
OUT=/tmp/p1 LAYA_CALL2_GENERIC=-alt timeout -s KILL 300 bash .gpu/call2.sh
echo "part 1 rc=$?" >> /tmp/p1/summary.txt
cp /tmp/p1/summary.txt "$O/part1-summary.txt"
cp /tmp/p1/call2-tests-generic.log.gz "$O/part1-tests-ptx80.log.gz" 2>/dev/null
OUT=/tmp/p2 LAYA_PARITY_TIMEOUT=230 timeout -s KILL 260 bash .gpu/call2-s51.sh
echo "part 2 rc=$?" >> /tmp/p2/summary.txt
cp /tmp/p2/summary.txt "$O/part2-summary.txt"
cp /tmp/p2/parity-generic.log.gz "$O/part2-parity-generic.log.gz" 2>/dev/null
