#!/usr/bin/env bash
# Session 19 call 5 (final validation of 7b2adac): test_cuda_host and test_gpu, the A/B against
# 2178d99's binary (laya-engine-base) in three interleaved rounds, then the suite's bench + official
# comparison on the benchmark shapes.
set -u
export OUT=${OUT:-/tmp/out}
rm -rf /tmp/laya-gpu
LAYA_BENCH_SHAPES=1x48,1x128,1x512,2x512,3x512,4x464,8x512,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 300 bash .gpu/run_ab_suite.sh tests,bench
echo "ab suite rc=$?" >> $OUT/summary.txt
mkdir -p $OUT/ab && mv $OUT/bench.jsonl $OUT/ab/ 2>/dev/null
LAYA_BENCH_SHAPES=1x48,2x64,4x64,1x464,1x512,4x464,16x512 LAYA_BENCH_ITERS=30 timeout 280 bash .gpu/run_gpu_suite.sh bench,official
echo "suite rc=$?" >> $OUT/summary.txt
