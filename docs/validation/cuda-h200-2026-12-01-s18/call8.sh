#!/usr/bin/env bash
# Session 18 call 8 (item 106): the RoPE table rows sent to L2 before attention's wait — the new
# build against the baseline binary (laya-engine-base: the session's code before the change),
# test_cuda_host and test_gpu of the new build, three interleaved rounds, small buckets and controls.
set -u
export OUT=${OUT:-/tmp/out}
export LAYA_BENCH_SHAPES=1x16,1x48,2x32,1x64,1x128,4x64,1x512
export LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30
rm -rf /tmp/laya-gpu
timeout 560 bash .gpu/run_ab_suite.sh tests,bench
echo "suite rc=$?" >> $OUT/summary.txt
