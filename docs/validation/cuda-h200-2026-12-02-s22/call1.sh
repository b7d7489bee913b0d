#!/usr/bin/env bash
# Session 22 call 1: item 118 (the heads read the pruned layer's compact rows: no scatter kernel)
# against 2b4135d's binary (session 21's end) — test_cuda_host, test_gpu, the A/B in five
# interleaved rounds on the shapes that prune; then laya_bench_clock_gap (the host - event gap).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_BENCH_SHAPES=1x16,1x48,2x64,8x16,1x128,1x256,1x512,4x464 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=30 \
  timeout 330 bash .gpu/run_ab_suite.sh tests,bench
echo "ab suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) " $OUT/tests.log >> $OUT/summary.txt
timeout 60 .gpu/run.sh laya_bench_clock_gap --reps 30 > $OUT/clock_gap.txt 2>&1
echo "clock gap rc=$? ($SECONDS s)" >> $OUT/summary.txt
ls $OUT >> $OUT/summary.txt
