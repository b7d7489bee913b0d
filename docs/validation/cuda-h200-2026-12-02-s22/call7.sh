#!/usr/bin/env bash
# Session 22 call 7: item 121 (device timing opt-in: forward records no CUDA events unless asked;
# bench's host samples without them, its device samples from as many forwards again with them)
# against 499965a's binary (events in every forward) — test_cuda_host, test_gpu, then the A/B in
# five interleaved rounds.
set -u
export OUT=${OUT:-/tmp/out}
LAYA_BENCH_SHAPES=1x16,1x48,2x64,1x128,1x512,4x464 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=30 \
  timeout 420 bash .gpu/run_ab_suite.sh tests,bench
echo "ab suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |DeviceTiming" $OUT/tests.log >> $OUT/summary.txt
ls $OUT >> $OUT/summary.txt
