#!/usr/bin/env bash
# Session 23 call 15: the final engine (item 123 to 1,535 rows; item 124 reverted) — test_cuda_host,
# test_gpu, then the A/B against b822916's behaviour with the final engine first in each round.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" >> $OUT/summary.txt
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) " $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="final:LAYA_X=0 b822916:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_FROM=0" \
LAYA_BENCH_SHAPES=8x128,9x128,10x128,11x128,1x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 120 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
