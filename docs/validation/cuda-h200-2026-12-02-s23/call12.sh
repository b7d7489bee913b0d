#!/usr/bin/env bash
# Session 23 call 12: call 11's `both` again, five rounds (env switches of 8b8edd6).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_VARIANTS="base:LAYA_CUDA_PDL_ALL_FROM=1536 both:LAYA_CUDA_PDL_ALL_FROM=1280,LAYA_CUDA_RESIDUAL_GEMM_FROM=1280" \
LAYA_BENCH_SHAPES=10x128,11x128,9x128 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=30 \
  timeout 200 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
