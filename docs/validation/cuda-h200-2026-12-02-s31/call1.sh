#!/usr/bin/env bash
# Session 31, call 1: session 30's review clean-ups on the GPU (the GPU tests' max_probability_gap
# helper, synth_layout in every suite): tests + serve's HTTP check on english; then english's
# cluster table on the typed-decisions checkpoint (session 30's call 7), the new table against the
# old rule by switch, two rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 1 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests,http > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) suite rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/suite/summary.txt >> $OUT/summary.txt
cp $OUT/suite/tests.log $OUT/tests.log 2>/dev/null; cp $OUT/suite/http.txt $OUT/http.txt 2>/dev/null
LAYA_BENCH_LAYOUT=typed-decisions LAYA_VARIANTS="old:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:5248x1024+1024x1024;769-1535 new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x192,1x320,1x416,1x448,2x288,2x352,1x512 LAYA_BENCH_ROUNDS=2 LAYA_BENCH_ITERS=30 OUT=$OUT/td \
  timeout 110 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) typed-decisions rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/td/summary.txt >> $OUT/summary.txt
cp $OUT/td/bench.jsonl $OUT/td-bench.jsonl 2>/dev/null
rm -rf $OUT/suite $OUT/td
echo "== $(date -u +%H:%M:%S) call 1 end" | tee -a "$OUT/summary.txt"
