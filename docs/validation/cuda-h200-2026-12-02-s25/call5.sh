#!/usr/bin/env bash
# Session 25 call 5: RoPE in the small GEMM's QKV epilogue (item 133), three MLP-output partials in
# the small buckets (item 132) and cuBLASLt's candidates timed from 2,560 rows (item 131) as
# defaults: the tests, then the A/B against the old behaviour by switches of the same binary.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" >> $OUT/summary.txt
timeout 180 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED|RopeForm|RopeInThe" $OUT/tests.log >> $OUT/summary.txt
OLD="LAYA_CUDA_ROPE_IN_GEMM=0,LAYA_CUDA_SMALL_MLP_OUT_SPLITS=2,LAYA_CUDA_GEMM_TUNE_FROM_M=4096"
LAYA_VARIANTS="new:LAYA_X=0 norope:LAYA_CUDA_ROPE_IN_GEMM=0 old:$OLD" \
LAYA_BENCH_SHAPES=1x16,1x48,2x32,1x64,4x64,1x128,1x512,9x256,5x512,6x512,4x464 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/a timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
