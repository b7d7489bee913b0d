#!/usr/bin/env bash
# Session 25 call 8: the rope form without an exchange — a W map that pairs each head's dims j and
# j + 32 in one thread, the rotation in registers, the table entries read into registers before the
# PDL wait (item 134): its tests and the engine's, then the A/B against the rotation in attention.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 100 $R test_gpu --gtest_filter=*Rope*:*SmallGemm*:CudaEngine.* > $OUT/tests.log 2>&1; echo "test_gpu rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="new:LAYA_X=0 norope:LAYA_CUDA_ROPE_IN_GEMM=0" \
LAYA_BENCH_SHAPES=1x16,1x48,2x32,1x64,1x100,1x128 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 120 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
