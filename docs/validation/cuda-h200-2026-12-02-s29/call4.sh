#!/usr/bin/env bash
# Session 29, call 4: the final rules (items 149-150) against 42f2751's binary, both layouts, four
# rounds; the whole test_gpu and test_cuda_host; full-size parity on the multilingual checkpoint
# (whose small and fused-GeGLU paths the rules change).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
R=.gpu/run.sh X=${LAYA_GPU_UNPACK:-/tmp/laya-gpu}
echo "== $(date -u +%H:%M:%S) call 4 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
V="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0"
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="$V" \
LAYA_BENCH_SHAPES=1x48,3x16,8x6,2x32,1x512,4x464,4x512,18x128,20x128,32x128,16x512 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ml timeout 150 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) multilingual rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/ml/summary.txt >> $OUT/summary.txt
LAYA_BENCH_LAYOUT=english LAYA_VARIANTS="$V" LAYA_BENCH_SHAPES=1x48,8x6,14x128,4x464,16x512 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/en timeout 120 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) english rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/en/summary.txt >> $OUT/summary.txt
$R test_cuda_host > "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_cuda_host rc=$?" | tee -a "$OUT/summary.txt"
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* >> "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_gpu rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]" "$OUT/tests.log" | tee -a "$OUT/summary.txt"
LAYA_GPU_PARITY_DIRS=/tmp/ck-multilingual LAYA_GPU_PARITY_REQUESTS=30 LAYA_GPU_PARITY_MAX_TOKENS=4096 \
  timeout 150 $R test_gpu --gtest_filter=*Extra* > "$OUT/parity.log" 2>&1
echo "== $(date -u +%H:%M:%S) multilingual parity rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED) |^parity|^30 requests|  logits  " "$OUT/parity.log" | tee -a "$OUT/summary.txt"
echo "== $(date -u +%H:%M:%S) call 4 end" | tee -a "$OUT/summary.txt"
