#!/usr/bin/env bash
# Session 23 call 10: nvjet's picks without clusters from 1,536 to 2,047 rows (env switch of ae81710).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_VARIANTS="to1535:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=1535 to2047:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=2047" \
LAYA_BENCH_SHAPES=12x128,3x512,13x128,14x128 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 200 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
