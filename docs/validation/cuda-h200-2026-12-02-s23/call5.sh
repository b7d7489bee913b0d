#!/usr/bin/env bash
# Session 23 call 5: nvjet's picks with a 1x1x1 cluster beyond 64 rows (env switch of b822916).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_VARIANTS="base:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_MAX_M=64 c1_1279:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_MAX_M=1279 c1_2048:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_MAX_M=2048" \
LAYA_BENCH_SHAPES=1x160,1x256,1x512,2x512,4x464 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 300 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
