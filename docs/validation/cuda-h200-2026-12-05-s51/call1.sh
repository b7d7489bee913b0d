#!/usr/bin/env bash
# Session 51, call 1: session 49's call2.sh (the kernel image check and the generic kernels on the
# H200) on main, alone — the branch t80p-rule of s48-s50 is gone from this checkout and the
# session's device budget was 554 s. Bundle, from main's checkout:
#   cmake -S . -B build/cuda-h -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAYA_WITH_CUDA=ON \
#     -DCMAKE_CUDA_COMPILER=nvcc -DCMAKE_CUDA_ARCHITECTURES=90a-real -DLAYA_BUILD_BENCH=OFF
#   cmake -S . -B build/cuda-generic ... -DCMAKE_CUDA_ARCHITECTURES=90-real -DLAYA_BUILD_BENCH=OFF
#   cmake --build build/cuda-h --target laya-engine test_gpu test_cuda_host
#   cmake --build build/cuda-generic --target laya-engine test_gpu
#   mkdir -p /tmp/generic && cp build/cuda-generic/bin/laya-engine build/cuda-generic/tests/gpu/test_gpu /tmp/generic/
#   LAYA_BASELINE_BIN=/tmp/generic LAYA_BUNDLE_PROBES=none scripts/gpu/bundle.sh build/cuda-h
#   cp docs/validation/cuda-h200-2026-12-05-s49/call2.sh docs/validation/cuda-h200-2026-12-05-s51/call1.sh .gpu/
# (laya-engine / test_gpu: the sm_90a build; -base: the 90-real one — call2.sh's defaults.)
set -u
O=${OUT:-/tmp/out}
mkdir -p "$O"
OUT=/tmp/p2 timeout -s KILL 280 bash .gpu/call2.sh
echo "call2 rc=$?" >> /tmp/p2/summary.txt
cp /tmp/p2/summary.txt "$O/summary.txt"
cp /tmp/p2/call2-tests-generic.log.gz "$O/" 2>/dev/null
(cd /tmp/p2 && tar -czf "$O/logs.tar.gz" tests.log tests-generic.log answers-*.jsonl decide-*.err 2>/dev/null)
