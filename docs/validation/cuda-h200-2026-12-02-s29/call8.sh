#!/usr/bin/env bash
# Session 29, call 8: item 151's default cluster rule for d < 1,024 against the old one (given as the
# override's spec), multilingual, four rounds; the engine's cluster-rule and bitwise tests.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 8 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
LAYA_BENCH_LAYOUT=multilingual \
LAYA_VARIANTS="old:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:2304x768+768x768;769-1535 new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x256,1x384,1x464,1x512,2x256,1x640,6x128 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/a timeout 120 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) variants rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/a/summary.txt >> $OUT/summary.txt
cp $OUT/a/bench.jsonl $OUT/bench.jsonl 2>/dev/null
.gpu/run.sh test_cuda_host > "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_cuda_host rc=$?" | tee -a "$OUT/summary.txt"
timeout 90 .gpu/run.sh test_gpu --gtest_filter=*Cluster*:*Bitwise*:*ParityWithCpuEngineOnTiny*:*GemmTuning* >> "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_gpu rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]" "$OUT/tests.log" | tee -a "$OUT/summary.txt"
echo "== $(date -u +%H:%M:%S) call 8 end" | tee -a "$OUT/summary.txt"
