#!/usr/bin/env bash
# Session 23 call 6: where nvjet's picks run faster without a cluster between 513 and 1,279 rows
# (env switches of one build), and the GEMM tests with the second range.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 120 $R test_gpu --gtest_filter=*SingleCta* > $OUT/tests.log 2>&1
echo "single-CTA-cluster tests rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED|1x1x1 cluster" $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_FROM=0 from513:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_FROM=513,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=1279 from769:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_FROM=769,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=1279" \
LAYA_BENCH_SHAPES=5x128,6x128,7x128,2x512,4x256,9x128 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 300 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
