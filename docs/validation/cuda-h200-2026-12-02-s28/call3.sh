#!/usr/bin/env bash
# Session 28 call 3: the fused GeGLU GEMM's idle producer warps send the next kernels' constants to
# L2 (item 148), the whole test_gpu, against a77a9f4.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 150 $R test_gpu > $OUT/tests.log 2>&1; echo "test_gpu rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base off:LAYA_CUDA_FUSED_GEGLU_PREFETCH_TO=0 on:LAYA_X=0 near:LAYA_CUDA_GEGLU_PREFETCH=15 to8k:LAYA_CUDA_FUSED_GEGLU_PREFETCH_TO=8192" \
LAYA_BENCH_SHAPES=2x512,10x128,11x128,3x512,4x464,4x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 400 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
