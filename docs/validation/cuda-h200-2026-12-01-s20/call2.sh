#!/usr/bin/env bash
# Session 20 call 2 (item 114): test_cuda_host, test_gpu, then the GeGLU pass's GELU table against
# its computed form (one build, env switch), three interleaved rounds.
set -u
export OUT=${OUT:-/tmp/out}
PH=tests
source .gpu/suite_common.sh
S=$OUT/summary.txt
record_machine
$R test_cuda_host > $OUT/tests.log 2>&1; log "test_cuda_host rc=$?"
timeout 200 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; log "test_gpu rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure|GeluTable" $OUT/tests.log | head -20 | tee -a $S
LAYA_VARIANTS="computed:LAYA_CUDA_GELU_TABLE=0 table:LAYA_CUDA_GELU_TABLE=1" \
LAYA_BENCH_SHAPES=1x48,1x192,1x256,1x464,1x512,2x256,2x512,4x464 LAYA_BENCH_ROUNDS=3 \
  bash .gpu/run_env_variants.sh
