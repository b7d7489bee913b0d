#!/usr/bin/env bash
# Session 30, call 6: the final engine (3237b21's, both cluster tables as defaults): tests, full-size
# multilingual parity against the CPU engine, and the multilingual buckets the table changed.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
R=.gpu/run.sh
echo "== $(date -u +%H:%M:%S) call 6 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
$R test_cuda_host > "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_cuda_host rc=$?" | tee -a "$OUT/summary.txt"
timeout 120 $R test_gpu --gtest_filter=-*Extra*:*Official* >> "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_gpu rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]" "$OUT/tests.log" | tee -a "$OUT/summary.txt"
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="old:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-256:2304x768+768x768;257-512:768x768;513-768:2304x768+768x768;769-1535 new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x320,1x416,1x448,1x464,1x512 LAYA_BENCH_ROUNDS=2 LAYA_BENCH_ITERS=30 OUT=$OUT/ml \
  timeout 60 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) multilingual rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/ml/summary.txt >> $OUT/summary.txt
LAYA_GPU_PARITY_DIRS=/tmp/ck-multilingual LAYA_GPU_PARITY_REQUESTS=30 LAYA_GPU_PARITY_MAX_TOKENS=4096 \
  timeout 100 $R test_gpu --gtest_filter=*Extra* > "$OUT/parity.log" 2>&1
echo "== $(date -u +%H:%M:%S) multilingual parity rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED) |^parity|^30 requests|  logits  " "$OUT/parity.log" | tee -a "$OUT/summary.txt"
echo "== $(date -u +%H:%M:%S) call 6 end" | tee -a "$OUT/summary.txt"
