#!/usr/bin/env bash
# Session 23 call 14: the fused GeGLU GEMM's threshold (env switches of 651c125).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_VARIANTS="base:LAYA_CUDA_GEGLU_GEMM_FROM=1280 geglu1536:LAYA_CUDA_GEGLU_GEMM_FROM=1536 geglu1152:LAYA_CUDA_GEGLU_GEMM_FROM=1152" \
LAYA_BENCH_SHAPES=9x128,10x128,11x128 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 180 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
