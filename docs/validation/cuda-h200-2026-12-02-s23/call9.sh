#!/usr/bin/env bash
# Session 23 call 9: nvjet's picks without clusters from 1,280 to 1,535 rows (env switch of ae81710).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_VARIANTS="default:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=1279 to1535:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=1535" \
LAYA_BENCH_SHAPES=9x128,10x128,11x128 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 200 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
