#!/usr/bin/env bash
# Session 18 call 1 (item 102): the fused GeGLU GEMM on one-wave tiles (128 x 80) for 129-512
# tokens against cuBLASLt + GeGLU (LAYA_CUDA_GEGLU_WAVE_FROM=0): test_cuda_host, test_gpu (all),
# three interleaved rounds of base / new, a variant from 385 tokens, and the kernels' resources.
set -u
export OUT=${OUT:-/tmp/out}
export LAYA_AB_BASE_ENV="LAYA_CUDA_GEGLU_WAVE_FROM=0"
export LAYA_AB_VARIANTS="w385:LAYA_CUDA_GEGLU_WAVE_FROM=385"
export LAYA_AB_VARIANT_TESTS=0
export LAYA_BENCH_SHAPES=1x48,1x144,1x200,4x64,1x300,1x384,1x464,1x512,3x160,4x464
export LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30
rm -rf /tmp/laya-gpu
timeout 560 bash .gpu/run_ab_suite.sh tests,bench
echo "suite rc=$?" >> $OUT/summary.txt
