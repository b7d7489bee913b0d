#!/usr/bin/env bash
# Session 31, call 2: the encoder in two token halves on two streams (LAYA_CUDA_SPLIT_FROM, off by
# default) — its GPU test, the whole GPU suite with it on from 129 tokens, and english timings,
# halves against one stream, three rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
R=.gpu/run.sh
echo "== $(date -u +%H:%M:%S) call 2 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
timeout 120 $R test_gpu --gtest_filter=*Halves* > "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_gpu halves rc=$?" | tee -a "$OUT/summary.txt"
LAYA_CUDA_SPLIT_FROM=129 timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* >> "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_gpu, split from 129 rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]" "$OUT/tests.log" | tee -a "$OUT/summary.txt"
LAYA_BENCH_LAYOUT=english LAYA_VARIANTS="one:LAYA_X=0 halves:LAYA_CUDA_SPLIT_FROM=129" \
LAYA_BENCH_SHAPES=1x160,1x256,1x384,1x464,1x512,2x256,2x512,3x512,4x464,8x512 \
LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 OUT=$OUT/en timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) english rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/en/summary.txt >> $OUT/summary.txt
cp $OUT/en/bench.jsonl $OUT/bench.jsonl 2>/dev/null; cp $OUT/en/bench_err.log $OUT/bench_err.log 2>/dev/null
rm -rf $OUT/en
echo "== $(date -u +%H:%M:%S) call 2 end" | tee -a "$OUT/summary.txt"
