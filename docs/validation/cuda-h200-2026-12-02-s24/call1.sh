#!/usr/bin/env bash
# Session 24 call 1: item 125 (the lean add+LN below 1,536 tokens) and item 126 (nvjet's 1x1x1
# cluster per GEMM shape), env switches of one build; gemm-shape tests without a GPU need.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 90 $R test_gpu --gtest_filter='*SingleCta*:*AddLn*:*Lean*' > $OUT/tests.log 2>&1; echo "test_gpu (filtered) rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) " $OUT/tests.log >> $OUT/summary.txt
# A: the lean add+LN from 1,152 (1,024 and 1,536 are controls: unchanged kernels).
LAYA_VARIANTS="base:LAYA_X=0 lean1152:LAYA_CUDA_LEAN_ADD_LN_FROM=1152 lean1152res1280:LAYA_CUDA_LEAN_ADD_LN_FROM=1152,LAYA_CUDA_RESIDUAL_GEMM_FROM=1280" \
LAYA_BENCH_SHAPES=2x512,9x128,10x128,11x128,12x128 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/a timeout 150 bash .gpu/run_env_variants.sh
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
# B: a 1x1x1 cluster for one GEMM shape at 129-768 rows (every other shape as the heuristic picks).
C="LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_FROM=129,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=768,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_NK"
LAYA_VARIANTS="base:LAYA_X=0 qkv:$C=3072x1024 wo:$C=1024x1024 wi:$C=5248x1024 wo2:$C=1024x2624" \
LAYA_BENCH_SHAPES=1x256,1x512,5x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/b timeout 150 bash .gpu/run_env_variants.sh
echo "B rc=$? ($SECONDS s)" >> $OUT/summary.txt
# C: the same at 1,536-2,048 rows (the MLP input GEMM is the fused GeGLU kernel there).
C="LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_FROM=1536,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=2048,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_NK"
LAYA_VARIANTS="base:LAYA_X=0 qkv:$C=3072x1024 wo:$C=1024x1024 wo2:$C=1024x2624" \
LAYA_BENCH_SHAPES=13x128,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/c timeout 120 bash .gpu/run_env_variants.sh
echo "C rc=$? ($SECONDS s)" >> $OUT/summary.txt
