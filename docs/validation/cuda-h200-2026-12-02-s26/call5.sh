#!/usr/bin/env bash
# Session 26 call 5: attention one block per SM for grids of one to two SM-counts of blocks (item
# 140, the rule as built; LAYA_CUDA_ATTN_ONE_BLOCK=0 as the base), its tests.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 150 $R test_gpu --gtest_filter=*Attention*:CudaEngine.* > $OUT/tests.log 2>&1; echo "test_gpu rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="off:LAYA_CUDA_ATTN_ONE_BLOCK=0 rule:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x48,1x256,1x512,3x128,4x128,5x100,8x64,2x200,6x80,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
