#!/usr/bin/env bash
# Session 30, call 7: english's cluster table on the typed-decisions checkpoint (english dims), the
# buckets the table changed, new against the old rule by switch, two rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 7 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
LAYA_BENCH_LAYOUT=typed-decisions LAYA_VARIANTS="old:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:5248x1024+1024x1024;769-1535 new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x192,1x320,1x416,1x448,2x288,2x352,1x512 LAYA_BENCH_ROUNDS=2 LAYA_BENCH_ITERS=30 OUT=$OUT/td \
  timeout 100 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) typed-decisions rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/td/summary.txt >> $OUT/summary.txt
echo "== $(date -u +%H:%M:%S) call 7 end" | tee -a "$OUT/summary.txt"
