#!/usr/bin/env bash
# Session 20 call 3 (item 115): test_gpu under the tail on the small GEMM + pruning from 129 tokens,
# then the variants (one build, env switches), three interleaved rounds.
set -u
export OUT=${OUT:-/tmp/out}
PH=tests
source .gpu/suite_common.sh
S=$OUT/summary.txt
record_machine
LAYA_CUDA_SMALL_TAIL=1 LAYA_CUDA_PRUNE_HEAD_FROM=129 timeout 200 $R test_gpu --gtest_filter=-*Extra*:*Official* > $OUT/tests.log 2>&1
log "test_gpu (tail + prune129) rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure" $OUT/tests.log | head -20 | tee -a $S
LAYA_VARIANTS="base:LAYA_X=0 tail:LAYA_CUDA_SMALL_TAIL=1 prune129:LAYA_CUDA_PRUNE_HEAD_FROM=129 both:LAYA_CUDA_SMALL_TAIL=1,LAYA_CUDA_PRUNE_HEAD_FROM=129" \
LAYA_BENCH_SHAPES=1x48,1x256,1x512,2x512,4x464,8x512,16x512 LAYA_BENCH_ROUNDS=3 \
  bash .gpu/run_env_variants.sh
