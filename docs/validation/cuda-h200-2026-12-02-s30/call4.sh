#!/usr/bin/env bash
# Session 30, call 4: a339a61's final rules (english cluster table by bucket) against the old rule by
# switch, four rounds; english full-size parity against the CPU engine; tests.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
R=.gpu/run.sh
echo "== $(date -u +%H:%M:%S) call 4 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
$R test_cuda_host > "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_cuda_host rc=$?" | tee -a "$OUT/summary.txt"
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* >> "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_gpu rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]" "$OUT/tests.log" | tee -a "$OUT/summary.txt"
LAYA_BENCH_LAYOUT=english LAYA_VARIANTS="old:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:5248x1024+1024x1024;769-1535 new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x48,1x144,1x160,1x176,1x192,1x208,1x224,1x240,1x256,1x288,1x320,1x352,1x384,1x416,1x448,1x464,1x512,2x288,2x320,2x352,3x256,4x464,16x512 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/en timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) english rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/en/summary.txt >> $OUT/summary.txt
LAYA_GPU_PARITY_DIRS=/tmp/ck-english LAYA_GPU_PARITY_REQUESTS=30 LAYA_GPU_PARITY_MAX_TOKENS=4096 \
  timeout 200 $R test_gpu --gtest_filter=*Extra* > "$OUT/parity.log" 2>&1
echo "== $(date -u +%H:%M:%S) english parity rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED) |^parity|^30 requests|  logits  " "$OUT/parity.log" | tee -a "$OUT/summary.txt"
echo "== $(date -u +%H:%M:%S) call 4 end" | tee -a "$OUT/summary.txt"
