#!/usr/bin/env bash
# Session 18 call 9 (item 106, second version: the RoPE prefetch only where the launches are
# PDL-chained) and the final validation: test_cuda_host and test_gpu, the A/B against 8772966's
# binary (laya-engine-base) in three interleaved rounds, then the suite's bench + official
# comparison on the benchmark shapes.
set -u
export OUT=${OUT:-/tmp/out}
rm -rf /tmp/laya-gpu
LAYA_BENCH_SHAPES=1x16,1x48,2x32,1x64,1x128,4x64,1x512,4x464 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 300 bash .gpu/run_ab_suite.sh tests,bench
echo "ab suite rc=$?" >> $OUT/summary.txt
mkdir -p $OUT/ab && mv $OUT/bench.jsonl $OUT/ab/ 2>/dev/null
LAYA_BENCH_SHAPES=1x48,2x64,4x64,1x464,1x512,4x464,16x512 LAYA_BENCH_ITERS=30 timeout 280 bash .gpu/run_gpu_suite.sh bench,official
echo "suite rc=$?" >> $OUT/summary.txt
