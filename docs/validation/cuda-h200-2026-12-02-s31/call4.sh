#!/usr/bin/env bash
# Session 31, call 4: the spread between fresh processes of one binary with identical settings
# (item 154 saw english 4x512 0.045 ms apart between two variants that run the same kernels):
# four identically configured variants (a dummy variable each), three rounds = 12 processes a shape.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 4 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
LAYA_BENCH_LAYOUT=english LAYA_VARIANTS="a:LAYA_X=0 b:LAYA_X=1 c:LAYA_X=2 d:LAYA_X=3" \
LAYA_BENCH_SHAPES=1x48,1x512,4x464,4x512,6x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 OUT=$OUT/en \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) english rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/en/summary.txt >> $OUT/summary.txt
cp $OUT/en/bench.jsonl $OUT/bench.jsonl 2>/dev/null
rm -rf $OUT/en
echo "== $(date -u +%H:%M:%S) call 4 end" | tee -a "$OUT/summary.txt"
