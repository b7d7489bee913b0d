#!/usr/bin/env bash
# Session 21 call 3: the final engine (9880ec4's code: pruning in every bucket) — test_cuda_host,
# test_gpu, then the A/B against f7bdcc8's binary (session 19's end) in three interleaved rounds.
set -u
export OUT=${OUT:-/tmp/out}
LAYA_BENCH_SHAPES=1x16,1x48,2x64,4x64,1x128,8x16,1x256,1x512,4x464 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 300 bash .gpu/run_ab_suite.sh tests,bench
echo "ab suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) " $OUT/tests.log >> $OUT/summary.txt
