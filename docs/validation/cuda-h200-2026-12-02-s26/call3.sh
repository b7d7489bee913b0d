#!/usr/bin/env bash
# Session 26 call 3: the small GEMM's wide/narrow boundary at 16-48 tokens (item 138, env switches
# of the call-2 binary), and item 137 again at 129-512 tokens, six rounds (a58543d as
# laya-engine-base).
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0 wide32:LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=32 wide16:LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=16" \
LAYA_BENCH_SHAPES=1x16,1x32,2x16,1x48,3x16,8x6,1x160,1x192,4x128 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 500 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
