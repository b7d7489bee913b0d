#!/usr/bin/env bash
# Session 28 call 1: the GeGLU pass's idle threads send the next kernels' constants to L2 (item
# 146), its tests, against 33b7a90.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 150 $R test_gpu --gtest_filter=*Geglu*:*Launchers*:*GeluTable*:CudaEngine.ParityWithCpuEngineOnTiny*:CudaEngine.Bitwise* > $OUT/tests.log 2>&1; echo "test_gpu rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base off:LAYA_CUDA_GEGLU_PREFETCH=0 all:LAYA_X=0 near:LAYA_CUDA_GEGLU_PREFETCH=15 k4:LAYA_CUDA_GEGLU_PREFETCH_KTILES=4" \
LAYA_BENCH_SHAPES=1x48,1x160,1x256,1x384,1x512,4x128,2x512,9x128,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 400 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
