#!/usr/bin/env bash
# Session 29, call 3: item 149's rule (the fused GeGLU GEMM only where its tiles' last round is not
# a short one after one or two full rounds) on both layouts: the rule's default (25 %) against the
# old behaviour (LAYA_CUDA_GEGLU_GEMM_MIN_FILL=0) and thresholds 10 / 50, four rounds each; the
# multilingual 48-token bucket in the narrow layout on more shapes; then the tests that cover the
# two MLP-input paths on the new build.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 3 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
V="old:LAYA_CUDA_GEGLU_GEMM_MIN_FILL=0 rule:LAYA_X=0 fill10:LAYA_CUDA_GEGLU_GEMM_MIN_FILL=10 fill50:LAYA_CUDA_GEGLU_GEMM_MIN_FILL=50"
LAYA_BENCH_LAYOUT=english LAYA_VARIANTS="$V" \
LAYA_BENCH_SHAPES=10x128,12x128,13x128,14x128,4x464,18x128,20x128,16x512 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/en timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) english rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/en/summary.txt >> $OUT/summary.txt
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="$V wide32:LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=32" \
LAYA_BENCH_SHAPES=1x48,8x6,3x16,6x8,4x464,4x512,18x128,20x128,32x128,16x512 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ml timeout 220 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) multilingual rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/ml/summary.txt >> $OUT/summary.txt
.gpu/run.sh test_cuda_host --gtest_filter=*Bucket* > "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_cuda_host buckets rc=$?" | tee -a "$OUT/summary.txt"
timeout 120 .gpu/run.sh test_gpu --gtest_filter=*Geglu*:*Bitwise*:*ParityWithCpuEngineOnTiny* >> "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_gpu geglu/bitwise/parity rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]" "$OUT/tests.log" | tee -a "$OUT/summary.txt"
echo "== $(date -u +%H:%M:%S) call 3 end" | tee -a "$OUT/summary.txt"
