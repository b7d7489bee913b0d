#!/usr/bin/env bash
# Session 32, call 1: the GEMM choice inside the captured forward (LAYA_CUDA_GEMM_GRAPH_TUNE=8, an
# experiment switch, off by default). GPU tests with the refactored capture (switch off), then the
# switch against the default, two rounds; the tuner's per-candidate log comes back too.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 1 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) suite rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/suite/summary.txt >> $OUT/summary.txt
cp $OUT/suite/tests.log $OUT/tests.log 2>/dev/null
LAYA_VARIANTS="base:LAYA_X=0 tune:LAYA_CUDA_GEMM_GRAPH_TUNE=8" \
LAYA_BENCH_SHAPES=1x256,1x512,2x512,4x464 LAYA_BENCH_ROUNDS=2 LAYA_BENCH_ITERS=30 OUT=$OUT/tune \
  timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) tune rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/tune/summary.txt >> $OUT/summary.txt
grep "graph tune" $OUT/tune/bench_err.log > $OUT/tune-log.txt 2>/dev/null
grep "graph tune .*:.*tried" $OUT/tune-log.txt >> $OUT/summary.txt
cp $OUT/tune/bench.jsonl $OUT/tune-bench.jsonl 2>/dev/null
rm -rf $OUT/suite $OUT/tune
echo "== $(date -u +%H:%M:%S) call 1 end" | tee -a "$OUT/summary.txt"
