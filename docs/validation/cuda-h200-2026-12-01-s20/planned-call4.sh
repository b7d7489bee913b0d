#!/usr/bin/env bash
# Session 20 call 4 (item 116): d7604c3 (the skinny experiment removed) — test_cuda_host, test_gpu;
# then pruning the last decision layer in the small buckets too (env switch), three rounds.
set -u
export OUT=${OUT:-/tmp/out}
PH=tests
source .gpu/suite_common.sh
S=$OUT/summary.txt
record_machine
$R test_cuda_host > $OUT/tests.log 2>&1; log "test_cuda_host rc=$?"
timeout 200 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; log "test_gpu rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure" $OUT/tests.log | head -20 | tee -a $S
LAYA_VARIANTS="base:LAYA_X=0 prune1:LAYA_CUDA_PRUNE_HEAD_FROM=1" \
LAYA_BENCH_SHAPES=1x16,1x48,2x64,4x64,1x128,8x16,1x512 LAYA_BENCH_ROUNDS=3 \
  bash .gpu/run_env_variants.sh
