#!/usr/bin/env bash
# Session 28 call 4: the suite on the session's final code (a77a9f4's kernels: item 146) — tests,
# bench eager and graph, the official package interleaved, HTTP — then item 146 again against
# 33b7a90 (a second measurement, other shapes too).
set -u
export OUT=${OUT:-/tmp/out}
timeout 330 bash .gpu/run_gpu_suite.sh tests,bench,official,http
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x48,1x200,1x256,1x512,4x128,2x512,6x128,300+40+40 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/ab_bench.jsonl; rm -rf $OUT/a
