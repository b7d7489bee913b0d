#!/usr/bin/env bash
# Session 19 call 3 (item 108's rule: own edges everywhere, every edge from 1,536 tokens): the A/B
# suite against 2178d99's binary (laya-engine-base), tests and three interleaved rounds.
set -u
export OUT=${OUT:-/tmp/out}
rm -rf /tmp/laya-gpu
LAYA_BENCH_SHAPES=1x48,1x128,1x256,1x512,2x512,3x512,4x464,8x512,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 420 bash .gpu/run_ab_suite.sh tests,bench
echo "ab suite rc=$?" >> $OUT/summary.txt
