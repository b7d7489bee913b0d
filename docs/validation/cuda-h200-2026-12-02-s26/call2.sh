#!/usr/bin/env bash
# Session 26 call 2: attention's first K tile fetched together with the queries where K is rotated
# in the kernel on wgmma (item 137; against a58543d as laya-engine-base), its tests; the small
# GEMM's wide/narrow boundary again now that both layouts rotate (item 138, env switches).
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 120 $R test_gpu --gtest_filter=*Attention*:*Rope*:CudaEngine.* > $OUT/tests.log 2>&1; echo "test_gpu rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0 wide64:LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=64 wide32:LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=32" \
LAYA_BENCH_SHAPES=1x40,1x48,1x64,2x32,1x160,1x256,1x384,1x512,4x128,2x256,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 400 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
