#!/usr/bin/env bash
# Session 23 call 8: nvjet's picks without clusters beyond 1,279 rows (env switch of call 7's build).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_VARIANTS="default:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=1279 to4096:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=4096" \
LAYA_BENCH_SHAPES=3x512,4x464,8x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 200 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
